#ifndef OOD_CLIBXML2_SHIM_H
#define OOD_CLIBXML2_SHIM_H
/* Debian's libxml2 is built with ICU, so its encoding.h includes the system's ICU headers. A Swift
   program that imports Foundation (which carries its own ICU) beside OfflineOData would then see
   two different definitions of UErrorCode and fail to build. The engine uses no encoding handler
   (the one structure whose layout depends on this), so the ICU parts are left out of its view. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h> /* the metadata benchmark's baseline; the engine reads with SAX2 */
#include <libxml/xmlerror.h>

/* xmlFree is a global function-pointer variable, which Swift 6 refuses as not concurrency-safe. */
static inline void cxml_free(void *p) { xmlFree(p); }

/* A few libxml2 errors ("xmlParseChunk: encoder error") only ever go through the variadic generic
   error handler, whose default prints to stderr and which Swift cannot implement. These drop such
   messages for the calling thread (libxml2 keeps the handler per thread) and put back the previous
   handler; the failure itself still reaches the caller through the parser's state. */
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
