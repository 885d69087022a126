#ifndef OOD_CLIBXML2_SHIM_H
#define OOD_CLIBXML2_SHIM_H
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>

/* xmlFree is a global function-pointer variable, which Swift 6 refuses as not concurrency-safe. */
static inline void cxml_free(void *p) { xmlFree(p); }

/* A few libxml2 errors ("xmlParseChunk: encoder error") only ever go through the variadic generic
   error handler, whose default prints to stderr and which Swift cannot implement. These drop such
   messages for the calling thread (libxml2 keeps the handler per thread) and put back the previous
   handler; the failure itself still reaches the caller through the reader's return value. */
static inline void cxml_ignore_generic_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

typedef struct cxml_generic_error_state {
    xmlGenericErrorFunc handler;
    void *context;
} cxml_generic_error_state;

static inline cxml_generic_error_state cxml_silence_generic_errors(void) {
    cxml_generic_error_state previous = { *__xmlGenericError(), *__xmlGenericErrorContext() };
    xmlSetGenericErrorFunc(NULL, cxml_ignore_generic_error);
    return previous;
}

static inline void cxml_restore_generic_errors(cxml_generic_error_state previous) {
    xmlSetGenericErrorFunc(previous.context, previous.handler);
}
#endif
