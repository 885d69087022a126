#ifndef OOD_CLIBXML2_SHIM_H
#define OOD_CLIBXML2_SHIM_H
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>

/* xmlFree is a global function-pointer variable, which Swift 6 refuses as not concurrency-safe. */
static inline void cxml_free(void *p) { xmlFree(p); }
#endif
