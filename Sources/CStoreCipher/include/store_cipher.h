#ifndef OOD_STORE_CIPHER_H
#define OOD_STORE_CIPHER_H
/*
 * The store's encryption at rest: an SQLite VFS ("ood-cipher") that encrypts every page of the
 * database file, its WAL and its rollback journal with AES-256-GCM, plus the key derivation and
 * the plaintext store header. The format is docs/ENCRYPTION.md; this header is internal to the
 * engine (the public surfaces are the Swift options and the C header's ood_options_set_key).
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Internal to the engine: never exported from libofflineodata.so (its version script exports
 * ood_*, and these names share the prefix). */
#pragma GCC visibility push(hidden)

/** The VFS's name, given as `vfs=` in the URI of an encrypted store's connections. */
#define OOD_CIPHER_VFS_NAME "ood-cipher"
/** Bytes SQLite leaves at the end of every page (`PRAGMA`-free: SQLITE_FCNTL_RESERVE_BYTES). */
#define OOD_CIPHER_RESERVE 96
/** The plaintext store header at the start of the file (page 1's first bytes on disk). */
#define OOD_CIPHER_HEADER_SIZE 56
/** Key derivation: a raw 256-bit key, or PBKDF2-HMAC-SHA256 of a passphrase. */
#define OOD_CIPHER_KDF_RAW 0
#define OOD_CIPHER_KDF_PBKDF2_SHA256 1

/** Registers the VFS once (later calls do nothing). Returns an SQLite result code. */
int ood_cipher_register_vfs(void);

/** The name of SQLite's default VFS (for a plain connection that must not use the cipher's). */
const char *ood_cipher_default_vfs_name(void);

/** What the first bytes of a file say. */
typedef enum ood_cipher_file_kind {
    OOD_CIPHER_FILE_MISSING = 0,   /**< No file, or an empty one. */
    OOD_CIPHER_FILE_ENCRYPTED = 1, /**< An encrypted store: the header was read. */
    OOD_CIPHER_FILE_DAMAGED = 2,   /**< The encrypted store's magic, but a header that fails its checksum. */
    OOD_CIPHER_FILE_SQLITE = 3,    /**< A plain SQLite database. */
    OOD_CIPHER_FILE_OTHER = 4,     /**< Anything else (or unreadable). */
} ood_cipher_file_kind;

/** The plaintext header's fields. */
typedef struct ood_cipher_header {
    uint16_t version;
    uint16_t kdf;
    uint32_t page_size;
    uint32_t iterations;
    uint8_t salt[16];
    uint8_t check[16];
} ood_cipher_header;

/** Reads the header of the file at `path` into `out` (when it is OOD_CIPHER_FILE_ENCRYPTED). */
ood_cipher_file_kind ood_cipher_read_header(const char *path, ood_cipher_header *out);

/**
 * Derives the store's keys from the user's secret: `check` (16 bytes, kept in the header to tell
 * a wrong key) and `data_key` (32 bytes, encrypts the pages). Returns 0, or -1 on failure.
 */
int ood_cipher_derive(uint16_t kdf, const uint8_t *secret, size_t secret_length, const uint8_t salt[16],
                      uint32_t iterations, uint8_t data_key[32], uint8_t check[16]);

/** Fills `bytes` with cryptographically random bytes. Returns 0, or -1 on failure. */
int ood_cipher_random(uint8_t *bytes, size_t count);

/**
 * Registers a data key with the header to write (its page size is filled in by the VFS); the
 * returned id (> 0) goes into the connection's URI as `ood_key=<id>`. Returns -1 on failure.
 */
int ood_cipher_key_register(const uint8_t data_key[32], const ood_cipher_header *header);

/** Forgets a registered key; its bytes are wiped once the last file using it closes. */
void ood_cipher_key_release(int id);

/** Whether a page failed its authentication on this thread since the last call (then cleared). */
int ood_cipher_take_authentication_failure(void);

/** Wipes `count` bytes so the compiler cannot drop it. */
void ood_cipher_wipe(void *bytes, size_t count);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
