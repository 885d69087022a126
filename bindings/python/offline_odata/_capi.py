"""The C functions of offline_odata.h, declared for ctypes with their C prototypes beside them.

Owned strings (``char **out``) are declared as ``c_void_p`` so the pointer is kept and released
with the library's own ``ood_string_free``; ``c_char_p`` would copy and leak it.
"""
from ctypes import POINTER, c_char_p, c_int, c_long, c_void_p

from ._loader import load_library

lib = load_library()


def _declare(name, restype, *argtypes):
    function = getattr(lib, name)
    function.restype = restype
    function.argtypes = list(argtypes)
    return function


# const char *ood_version(void);
ood_version = _declare("ood_version", c_char_p)
# int ood_version_number(void);
ood_version_number = _declare("ood_version_number", c_int)
# const char *ood_error_message(void);
ood_error_message = _declare("ood_error_message", c_char_p)
# long ood_error_offset(void);
ood_error_offset = _declare("ood_error_offset", c_long)
# const char *ood_status_name(int status);
ood_status_name = _declare("ood_status_name", c_char_p, c_int)
# void ood_string_free(char *s);
ood_string_free = _declare("ood_string_free", None, c_void_p)

# ood_status ood_store_open(const char *path, ood_store **out);
ood_store_open = _declare("ood_store_open", c_int, c_char_p, POINTER(c_void_p))
# ood_status ood_store_close(ood_store *store);
ood_store_close = _declare("ood_store_close", c_int, c_void_p)
# ood_status ood_store_format_version(ood_store *store, int *out);
ood_store_format_version = _declare("ood_store_format_version", c_int, c_void_p, POINTER(c_int))
# ood_status ood_store_path(ood_store *store, char **out);
ood_store_path = _declare("ood_store_path", c_int, c_void_p, POINTER(c_void_p))


def take_string(pointer: c_void_p) -> str:
    """Decodes an owned ``char *`` and releases it with the library's free."""
    if not pointer.value:
        return ""
    try:
        return c_char_p(pointer.value).value.decode("utf-8")
    finally:
        ood_string_free(pointer)
