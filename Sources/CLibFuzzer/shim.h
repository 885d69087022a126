#ifndef OOD_CLIBFUZZER_SHIM_H
#define OOD_CLIBFUZZER_SHIM_H
#include <stddef.h>
#include <stdint.h>

typedef int (*cfuzz_callback)(const uint8_t *data, size_t size);

/* Weak, so that plain builds (no -sanitize=fuzzer) link too; the harness then replays its corpus. */
__attribute__((weak)) int LLVMFuzzerRunDriver(int *argc, char ***argv, cfuzz_callback callback);

/* Runs libFuzzer's driver, or returns -1 when the fuzzer runtime is not linked in. */
static inline int cfuzz_run_driver(int *argc, char ***argv, cfuzz_callback callback) {
    if (!LLVMFuzzerRunDriver) return -1;
    return LLVMFuzzerRunDriver(argc, argv, callback);
}
#endif
