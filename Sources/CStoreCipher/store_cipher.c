/*
 * The "ood-cipher" SQLite VFS: a shim over SQLite's default VFS that keeps every page of a store's
 * database file, WAL and rollback journal encrypted and authenticated (AES-256-GCM, OpenSSL EVP).
 * docs/ENCRYPTION.md is the format; this file follows it and says why where the code is not plain.
 *
 * A page image on disk (P = page size, R = OOD_CIPHER_RESERVE bytes SQLite leaves unused):
 *   [0, 56)          prefix: the store header for page 1 of the database file, zeros elsewhere
 *   [56, P-40)       ciphertext of the page's first P-R bytes (what SQLite uses)
 *   [P-40, P-16)     24 random bytes: 12 select the page's one-time key, 12 are the GCM nonce
 *   [P-16, P)        the GCM tag
 * The authenticated data is the file kind ('D', 'W', 'J'), the page number (4 bytes, big endian)
 * and, for page 1 of the database file, the 56-byte header.
 */
#include "store_cipher.h"

#include <sqlite3.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX_SIZE OOD_CIPHER_HEADER_SIZE
#define RANDOM_SIZE 24
#define TAG_SIZE 16
#define WAL_HEADER_SIZE 32
#define WAL_FRAME_HEADER_SIZE 24

static const uint8_t storeMagic[8] = {'O', 'O', 'D', 'C', 'R', 'Y', 'P', 'T'};
static const uint8_t sqliteMagic[16] = "SQLite format 3";

enum { KIND_PLAIN = 0, KIND_MAIN = 'D', KIND_WAL = 'W', KIND_JOURNAL = 'J' };

/* ---------------------------------------------------------------- byte helpers */

static uint32_t readBE32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static void writeBE32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

void ood_cipher_wipe(void *bytes, size_t count) {
    if (bytes && count) OPENSSL_cleanse(bytes, count);
}

int ood_cipher_random(uint8_t *bytes, size_t count) {
    return RAND_bytes(bytes, (int)count) == 1 ? 0 : -1;
}

static int validPageSize(uint32_t size) {
    return size >= 512 && size <= 65536 && (size & (size - 1)) == 0;
}

/* ---------------------------------------------------------------- the header */

/* The header's 4-byte checksum: the first bytes of SHA-256 over its first 52 bytes. */
static void headerChecksum(const uint8_t *header, uint8_t out[4]) {
    uint8_t digest[SHA256_DIGEST_LENGTH];
    SHA256(header, 52, digest);
    memcpy(out, digest, 4);
}

static void encodeHeader(const ood_cipher_header *h, uint32_t pageSize, uint8_t out[PREFIX_SIZE]) {
    memset(out, 0, PREFIX_SIZE);
    memcpy(out, storeMagic, 8);
    out[8] = (uint8_t)(h->version >> 8); out[9] = (uint8_t)h->version;
    out[10] = (uint8_t)(h->kdf >> 8); out[11] = (uint8_t)h->kdf;
    writeBE32(out + 12, pageSize);
    writeBE32(out + 16, h->iterations);
    memcpy(out + 20, h->salt, 16);
    memcpy(out + 36, h->check, 16);
    headerChecksum(out, out + 52);
}

/* 0: a valid header; 1: not the store's magic; 2: the magic with a bad checksum or field. */
static int decodeHeader(const uint8_t in[PREFIX_SIZE], ood_cipher_header *h) {
    if (memcmp(in, storeMagic, 8) != 0) return 1;
    uint8_t sum[4];
    headerChecksum(in, sum);
    if (memcmp(sum, in + 52, 4) != 0) return 2;
    h->version = (uint16_t)((in[8] << 8) | in[9]);
    h->kdf = (uint16_t)((in[10] << 8) | in[11]);
    h->page_size = readBE32(in + 12);
    h->iterations = readBE32(in + 16);
    memcpy(h->salt, in + 20, 16);
    memcpy(h->check, in + 36, 16);
    if (h->version != 1 || !validPageSize(h->page_size) || h->kdf > OOD_CIPHER_KDF_PBKDF2_SHA256) return 2;
    return 0;
}

ood_cipher_file_kind ood_cipher_read_header(const char *path, ood_cipher_header *out) {
    FILE *file = fopen(path, "rb");
    if (!file) return OOD_CIPHER_FILE_MISSING;
    uint8_t bytes[PREFIX_SIZE];
    size_t got = fread(bytes, 1, sizeof bytes, file);
    fclose(file);
    if (got == 0) return OOD_CIPHER_FILE_MISSING;
    if (got >= 16 && memcmp(bytes, sqliteMagic, 16) == 0) return OOD_CIPHER_FILE_SQLITE;
    if (got >= 8 && memcmp(bytes, storeMagic, 8) == 0) {
        if (got < PREFIX_SIZE) return OOD_CIPHER_FILE_DAMAGED;
        ood_cipher_header header;
        if (decodeHeader(bytes, &header) != 0) return OOD_CIPHER_FILE_DAMAGED;
        if (out) *out = header;
        return OOD_CIPHER_FILE_ENCRYPTED;
    }
    return OOD_CIPHER_FILE_OTHER;
}

/* ---------------------------------------------------------------- keys */

int ood_cipher_derive(uint16_t kdf, const uint8_t *secret, size_t secret_length, const uint8_t salt[16],
                      uint32_t iterations, uint8_t data_key[32], uint8_t check[16]) {
    uint8_t master[32];
    if (kdf == OOD_CIPHER_KDF_RAW) {
        if (secret_length != 32) return -1;
        memcpy(master, secret, 32);
    } else if (kdf == OOD_CIPHER_KDF_PBKDF2_SHA256) {
        if (iterations == 0) return -1;
        if (PKCS5_PBKDF2_HMAC((const char *)secret, (int)secret_length, salt, 16, (int)iterations,
                              EVP_sha256(), 32, master) != 1) return -1;
    } else {
        return -1;
    }
    /* Labels with the salt: the data key and the check value differ between stores with one key. */
    static const char checkLabel[] = "OfflineOData key check";
    static const char pageLabel[] = "OfflineOData page key";
    uint8_t message[64];
    uint8_t digest[32];
    unsigned int length = 0;
    size_t n = sizeof checkLabel - 1;
    memcpy(message, checkLabel, n);
    memcpy(message + n, salt, 16);
    int ok = HMAC(EVP_sha256(), master, 32, message, n + 16, digest, &length) != NULL;
    if (ok) memcpy(check, digest, 16);
    n = sizeof pageLabel - 1;
    memcpy(message, pageLabel, n);
    memcpy(message + n, salt, 16);
    ok = ok && HMAC(EVP_sha256(), master, 32, message, n + 16, data_key, &length) != NULL;
    ood_cipher_wipe(master, sizeof master);
    ood_cipher_wipe(digest, sizeof digest);
    return ok ? 0 : -1;
}

/* A registered data key. `registered` holds it in the table (new files may use it); `refs`
 * counts the open database files using it. Freed, wiped, when neither holds it. */
typedef struct CipherKey {
    int id;
    int refs;
    int registered;
    uint8_t dataKey[32];
    ood_cipher_header header;
    struct CipherKey *next;
} CipherKey;

static pthread_mutex_t keysLock = PTHREAD_MUTEX_INITIALIZER;
static CipherKey *keys = NULL;
static int nextKeyId = 1;

int ood_cipher_key_register(const uint8_t data_key[32], const ood_cipher_header *header) {
    CipherKey *key = calloc(1, sizeof *key);
    if (!key) return -1;
    memcpy(key->dataKey, data_key, 32);
    key->header = *header;
    key->registered = 1;
    pthread_mutex_lock(&keysLock);
    key->id = nextKeyId++;
    key->next = keys;
    keys = key;
    int id = key->id;
    pthread_mutex_unlock(&keysLock);
    return id;
}

/* Unlinks and wipes `key` when nothing holds it; called with keysLock held. */
static void dropKeyIfUnused(CipherKey *key) {
    if (key->refs > 0 || key->registered) return;
    for (CipherKey **p = &keys; *p; p = &(*p)->next) {
        if (*p == key) { *p = key->next; break; }
    }
    ood_cipher_wipe(key, sizeof *key);
    free(key);
}

void ood_cipher_key_release(int id) {
    pthread_mutex_lock(&keysLock);
    for (CipherKey *key = keys; key; key = key->next) {
        if (key->id == id) {
            key->registered = 0;
            dropKeyIfUnused(key);
            break;
        }
    }
    pthread_mutex_unlock(&keysLock);
}

static CipherKey *retainKey(int id) {
    CipherKey *found = NULL;
    pthread_mutex_lock(&keysLock);
    for (CipherKey *key = keys; key; key = key->next) {
        if (key->id == id && key->registered) { key->refs++; found = key; break; }
    }
    pthread_mutex_unlock(&keysLock);
    return found;
}

static void releaseKey(CipherKey *key) {
    pthread_mutex_lock(&keysLock);
    key->refs--;
    dropKeyIfUnused(key);
    pthread_mutex_unlock(&keysLock);
}

/* ---------------------------------------------------------------- files */

typedef struct CipherFile {
    sqlite3_file base;
    int kind;
    /* The database file: its key, page size, header bytes and crypto state. A WAL or journal
     * uses its database file's (the same connection, so never at the same time). */
    struct CipherFile *main;
    CipherKey *key;
    uint32_t pageSize;
    uint8_t header[PREFIX_SIZE];
    EVP_CIPHER_CTX *ecb;
    EVP_CIPHER_CTX *gcm;
    uint8_t *scratch;  /* 2 * (pageSize + WAL_FRAME_HEADER_SIZE) bytes */
    /* The page number written or read last in 4-byte form (a frame header or journal record),
     * and the offset its page follows at. */
    uint32_t lastPgno;
    sqlite3_int64 lastPgnoEnd;
    int hasLastPgno;
    sqlite3_file *real;
} CipherFile;

static const sqlite3_io_methods cipherMethods;

static sqlite3_vfs *underlying(sqlite3_vfs *vfs) { return (sqlite3_vfs *)vfs->pAppData; }

/* The page size of the database file, read from its header when not known yet. */
static int learnPageSize(CipherFile *m) {
    if (m->pageSize) return SQLITE_OK;
    sqlite3_int64 size = 0;
    int rc = m->real->pMethods->xFileSize(m->real, &size);
    if (rc != SQLITE_OK) return rc;
    if (size == 0) return SQLITE_OK;
    uint8_t bytes[PREFIX_SIZE];
    rc = m->real->pMethods->xRead(m->real, bytes, PREFIX_SIZE, 0);
    if (rc != SQLITE_OK) return rc == SQLITE_IOERR_SHORT_READ ? SQLITE_NOTADB : rc;
    ood_cipher_header header;
    if (decodeHeader(bytes, &header) != 0) return SQLITE_NOTADB;
    uint8_t *scratch = malloc(2 * ((size_t)header.page_size + WAL_FRAME_HEADER_SIZE));
    if (!scratch) return SQLITE_NOMEM;
    m->scratch = scratch;
    m->pageSize = header.page_size;
    /* What page 1 carries from now on: the registered key's header at this page size. */
    encodeHeader(&m->key->header, m->pageSize, m->header);
    return SQLITE_OK;
}

/* Fixes the page size from page 1's first write (bytes 16-17 of SQLite's header). */
static int learnPageSizeFromWrite(CipherFile *m, const uint8_t *page, int amount, sqlite3_int64 offset) {
    if (offset != 0 || amount < 100) return SQLITE_IOERR_WRITE;
    uint32_t size = ((uint32_t)page[16] << 8) | page[17];
    if (size == 1) size = 65536;
    if (!validPageSize(size) || (uint32_t)amount != size) return SQLITE_IOERR_WRITE;
    uint8_t *scratch = malloc(2 * ((size_t)size + WAL_FRAME_HEADER_SIZE));
    if (!scratch) return SQLITE_NOMEM;
    m->scratch = scratch;
    m->pageSize = size;
    encodeHeader(&m->key->header, size, m->header);
    return SQLITE_OK;
}

/* The page's one-time key: AES-256 (ECB, two blocks) under the data key of the 12 selector bytes
 * followed by the counter 1, then 2. A fresh key per write keeps GCM's random-nonce limit far. */
static int pageKey(CipherFile *m, const uint8_t selector[12], uint8_t out[32]) {
    uint8_t blocks[32];
    memcpy(blocks, selector, 12);
    writeBE32(blocks + 12, 1);
    memcpy(blocks + 16, selector, 12);
    writeBE32(blocks + 28, 2);
    int length = 0;
    int ok = EVP_EncryptUpdate(m->ecb, out, &length, blocks, 32) == 1 && length == 32;
    return ok ? 0 : -1;
}

static size_t associatedData(const CipherFile *m, int kind, uint32_t pgno, const uint8_t *prefix, uint8_t out[5 + PREFIX_SIZE]) {
    out[0] = (uint8_t)kind;
    writeBE32(out + 1, pgno);
    if (kind == KIND_MAIN && pgno == 1) {
        memcpy(out + 5, prefix, PREFIX_SIZE);
        return 5 + PREFIX_SIZE;
    }
    (void)m;
    return 5;
}

/* Encrypts the plaintext page `plain` (P bytes) into the disk image `out` (P bytes). */
static int sealPage(CipherFile *m, int kind, uint32_t pgno, const uint8_t *plain, uint8_t *out) {
    const uint32_t p = m->pageSize;
    const int contentSize = (int)(p - OOD_CIPHER_RESERVE);
    uint8_t *random = out + p - RANDOM_SIZE - TAG_SIZE;
    uint8_t *tag = out + p - TAG_SIZE;
    if (kind == KIND_MAIN && pgno == 1) memcpy(out, m->header, PREFIX_SIZE);
    else memset(out, 0, PREFIX_SIZE);
    if (RAND_bytes(random, RANDOM_SIZE) != 1) return SQLITE_IOERR_WRITE;
    uint8_t key[32];
    uint8_t aad[5 + PREFIX_SIZE];
    size_t aadSize = associatedData(m, kind, pgno, out, aad);
    int length = 0;
    int ok = pageKey(m, random, key) == 0
        && EVP_CipherInit_ex(m->gcm, NULL, NULL, key, random + 12, 1) == 1
        && EVP_CipherUpdate(m->gcm, NULL, &length, aad, (int)aadSize) == 1
        && EVP_CipherUpdate(m->gcm, out + PREFIX_SIZE, &length, plain, contentSize) == 1
        && EVP_CipherFinal_ex(m->gcm, out + PREFIX_SIZE + contentSize, &length) == 1
        && EVP_CIPHER_CTX_ctrl(m->gcm, EVP_CTRL_GCM_GET_TAG, TAG_SIZE, tag) == 1;
    ood_cipher_wipe(key, sizeof key);
    return ok ? SQLITE_OK : SQLITE_IOERR_WRITE;
}

/* Decrypts the disk image `disk` into `plain` (P bytes; the reserved tail zeroed). A page that
 * fails authentication (another key, a changed byte, another position or file) is SQLITE_IOERR_DATA. */
static int openPage(CipherFile *m, int kind, uint32_t pgno, const uint8_t *disk, uint8_t *plain) {
    const uint32_t p = m->pageSize;
    const int contentSize = (int)(p - OOD_CIPHER_RESERVE);
    const uint8_t *random = disk + p - RANDOM_SIZE - TAG_SIZE;
    uint8_t tag[TAG_SIZE];
    memcpy(tag, disk + p - TAG_SIZE, TAG_SIZE);
    uint8_t key[32];
    uint8_t aad[5 + PREFIX_SIZE];
    size_t aadSize = associatedData(m, kind, pgno, disk, aad);
    /* Outside page 1 of the database the prefix is zeros: checked, so no byte goes unnoticed. */
    if (!(kind == KIND_MAIN && pgno == 1)) {
        uint8_t any = 0;
        for (int i = 0; i < PREFIX_SIZE; i++) any |= disk[i];
        if (any) {
            memset(plain, 0, p);
            return SQLITE_IOERR_DATA;
        }
    }
    int length = 0;
    int ok = pageKey(m, random, key) == 0
        && EVP_CipherInit_ex(m->gcm, NULL, NULL, key, random + 12, 0) == 1
        && EVP_CipherUpdate(m->gcm, NULL, &length, aad, (int)aadSize) == 1
        && EVP_CipherUpdate(m->gcm, plain, &length, disk + PREFIX_SIZE, contentSize) == 1
        && EVP_CIPHER_CTX_ctrl(m->gcm, EVP_CTRL_GCM_SET_TAG, TAG_SIZE, tag) == 1
        && EVP_CipherFinal_ex(m->gcm, plain + contentSize, &length) == 1;
    ood_cipher_wipe(key, sizeof key);
    if (!ok) {
        memset(plain, 0, p);
        return SQLITE_IOERR_DATA;
    }
    memset(plain + contentSize, 0, OOD_CIPHER_RESERVE);
    return SQLITE_OK;
}

/* Set when a page fails its authentication on this thread: SQLite sometimes reports the VFS's
 * SQLITE_IOERR_DATA as a plain SQLITE_IOERR, and the engine's message should still say why. */
static __thread int authenticationFailed = 0;

int ood_cipher_take_authentication_failure(void) {
    int failed = authenticationFailed;
    authenticationFailed = 0;
    return failed;
}

/* openPage for a read SQLite needs: a failure is remembered for the message. */
static int openNeededPage(CipherFile *m, int kind, uint32_t pgno, const uint8_t *disk, uint8_t *plain) {
    int rc = openPage(m, kind, pgno, disk, plain);
    if (rc == SQLITE_IOERR_DATA) authenticationFailed = 1;
    return rc;
}

/* ---------------------------------------------------------------- the database file */

static int readMain(CipherFile *f, uint8_t *out, int amount, sqlite3_int64 offset) {
    int rc = learnPageSize(f);
    if (rc != SQLITE_OK) return rc;
    /* A new, empty file: SQLite reads its header and finds nothing. */
    if (f->pageSize == 0) return f->real->pMethods->xRead(f->real, out, amount, offset);
    const sqlite3_int64 p = f->pageSize;
    uint8_t *disk = f->scratch;
    uint8_t *plain = f->scratch + p + WAL_FRAME_HEADER_SIZE;
    while (amount > 0) {
        sqlite3_int64 pageStart = offset - offset % p;
        uint32_t pgno = (uint32_t)(pageStart / p + 1);
        int within = (int)(offset - pageStart);
        int take = (int)(p - within) < amount ? (int)(p - within) : amount;
        rc = f->real->pMethods->xRead(f->real, disk, (int)p, pageStart);
        if (rc == SQLITE_IOERR_SHORT_READ) {
            sqlite3_int64 size = 0;
            int sizeRc = f->real->pMethods->xFileSize(f->real, &size);
            if (sizeRc != SQLITE_OK) return sizeRc;
            /* Past the end: zeros and a short read, as SQLite expects. A cut page is damage. */
            if (size > pageStart) return SQLITE_IOERR_DATA;
            memset(out, 0, (size_t)amount);
            return SQLITE_IOERR_SHORT_READ;
        }
        if (rc != SQLITE_OK) return rc;
        if (within == 0 && take == p) {
            rc = openNeededPage(f, KIND_MAIN, pgno, disk, out);
        } else {
            rc = openNeededPage(f, KIND_MAIN, pgno, disk, plain);
            if (rc == SQLITE_OK) memcpy(out, plain + within, (size_t)take);
        }
        if (rc != SQLITE_OK) return rc;
        out += take;
        offset += take;
        amount -= take;
    }
    return SQLITE_OK;
}

static int writeMain(CipherFile *f, const uint8_t *page, int amount, sqlite3_int64 offset) {
    int rc = learnPageSize(f);
    if (rc != SQLITE_OK) return rc;
    if (f->pageSize == 0) {
        rc = learnPageSizeFromWrite(f, page, amount, offset);
        if (rc != SQLITE_OK) return rc;
    }
    const sqlite3_int64 p = f->pageSize;
    /* Only whole pages reach the database file; anything else would go out in plaintext. */
    if (amount != p || offset % p != 0) return SQLITE_IOERR_WRITE;
    uint32_t pgno = (uint32_t)(offset / p + 1);
    if (pgno == 1) {
        uint32_t size = ((uint32_t)page[16] << 8) | page[17];
        if (size == 1) size = 65536;
        /* The reserved bytes hold the nonce and tag: a page without them cannot be kept. */
        if (size != f->pageSize || page[20] < OOD_CIPHER_RESERVE) return SQLITE_IOERR_WRITE;
    }
    rc = sealPage(f, KIND_MAIN, pgno, page, f->scratch);
    if (rc != SQLITE_OK) return rc;
    return f->real->pMethods->xWrite(f->real, f->scratch, amount, offset);
}

/* ---------------------------------------------------------------- the WAL and the journal */

/* The page number in the 4 bytes at `at`, from the last 4-byte I/O when it was there. */
static int pgnoAt(CipherFile *f, sqlite3_int64 pageOffset, sqlite3_int64 at, uint32_t *pgno) {
    if (f->hasLastPgno && f->lastPgnoEnd == pageOffset) { *pgno = f->lastPgno; return SQLITE_OK; }
    uint8_t bytes[4];
    int rc = f->real->pMethods->xRead(f->real, bytes, 4, at);
    if (rc != SQLITE_OK) return rc;
    *pgno = readBE32(bytes);
    return SQLITE_OK;
}

static int readWal(CipherFile *f, uint8_t *out, int amount, sqlite3_int64 offset) {
    CipherFile *m = f->main;
    int rc = learnPageSize(m);
    if (rc != SQLITE_OK) return rc;
    const int p = (int)m->pageSize;
    if (p == 0 || amount < p) return f->real->pMethods->xRead(f->real, out, amount, offset);
    if (amount == p + WAL_FRAME_HEADER_SIZE) {
        /* A whole frame, read by recovery: SQLite then checks its checksum over the plaintext. A
         * frame that does not authenticate is handed over with a zeroed page, which fails that
         * checksum, so the log ends there: what SQLite does with a torn frame of a plain file. */
        rc = f->real->pMethods->xRead(f->real, out, amount, offset);
        if (rc != SQLITE_OK) return rc;
        memcpy(m->scratch, out + WAL_FRAME_HEADER_SIZE, (size_t)p);
        if (openPage(m, KIND_WAL, readBE32(out), m->scratch, out + WAL_FRAME_HEADER_SIZE) != SQLITE_OK) {
            memset(out + WAL_FRAME_HEADER_SIZE, 0, (size_t)p);
        }
        return SQLITE_OK;
    }
    if (amount == p && offset >= WAL_HEADER_SIZE + WAL_FRAME_HEADER_SIZE) {
        /* A frame's page: read with its header, which names the page. */
        uint8_t *frame = m->scratch;
        rc = f->real->pMethods->xRead(f->real, frame, p + WAL_FRAME_HEADER_SIZE, offset - WAL_FRAME_HEADER_SIZE);
        if (rc != SQLITE_OK) return rc;
        return openNeededPage(m, KIND_WAL, readBE32(frame), frame + WAL_FRAME_HEADER_SIZE, out);
    }
    return SQLITE_IOERR_READ;
}

static int writeWal(CipherFile *f, const uint8_t *data, int amount, sqlite3_int64 offset) {
    CipherFile *m = f->main;
    int rc = learnPageSize(m);
    if (rc != SQLITE_OK) return rc;
    const int p = (int)m->pageSize;
    if (amount == WAL_FRAME_HEADER_SIZE && offset >= WAL_HEADER_SIZE) {
        f->lastPgno = readBE32(data);
        f->lastPgnoEnd = offset + WAL_FRAME_HEADER_SIZE;
        f->hasLastPgno = 1;
        return f->real->pMethods->xWrite(f->real, data, amount, offset);
    }
    if (amount == WAL_HEADER_SIZE && offset == 0) return f->real->pMethods->xWrite(f->real, data, amount, offset);
    if (p != 0 && amount == p && offset >= WAL_HEADER_SIZE + WAL_FRAME_HEADER_SIZE) {
        uint32_t pgno = 0;
        rc = pgnoAt(f, offset, offset - WAL_FRAME_HEADER_SIZE, &pgno);
        if (rc != SQLITE_OK) return rc;
        rc = sealPage(m, KIND_WAL, pgno, data, m->scratch);
        if (rc != SQLITE_OK) return rc;
        return f->real->pMethods->xWrite(f->real, m->scratch, amount, offset);
    }
    /* No other shape is known to carry no page content: refused rather than written in plaintext. */
    return SQLITE_IOERR_WRITE;
}

/* A journal record is a 4-byte page number, the page, a 4-byte checksum; headers start at sector
 * boundaries, so a page image is the one page-sized I/O right after a 4-byte one. */
static int readJournal(CipherFile *f, uint8_t *out, int amount, sqlite3_int64 offset) {
    CipherFile *m = f->main;
    int rc = learnPageSize(m);
    if (rc != SQLITE_OK) return rc;
    const int p = (int)m->pageSize;
    if (amount == 4) {
        rc = f->real->pMethods->xRead(f->real, out, amount, offset);
        if (rc == SQLITE_OK) { f->lastPgno = readBE32(out); f->lastPgnoEnd = offset + 4; f->hasLastPgno = 1; }
        return rc;
    }
    if (p != 0 && amount == p && offset % 512 != 0 && offset >= 4) {
        uint8_t *record = m->scratch;
        rc = f->real->pMethods->xRead(f->real, record, p + 4, offset - 4);
        if (rc != SQLITE_OK) return rc;
        return openNeededPage(m, KIND_JOURNAL, readBE32(record), record + 4, out);
    }
    return f->real->pMethods->xRead(f->real, out, amount, offset);
}

static int writeJournal(CipherFile *f, const uint8_t *data, int amount, sqlite3_int64 offset) {
    CipherFile *m = f->main;
    int rc = learnPageSize(m);
    if (rc != SQLITE_OK) return rc;
    const int p = (int)m->pageSize;
    if (amount == 4) {
        f->lastPgno = readBE32(data);
        f->lastPgnoEnd = offset + 4;
        f->hasLastPgno = 1;
        return f->real->pMethods->xWrite(f->real, data, amount, offset);
    }
    if (p != 0 && amount == p && offset % 512 != 0 && offset >= 4) {
        uint32_t pgno = 0;
        rc = pgnoAt(f, offset, offset - 4, &pgno);
        if (rc != SQLITE_OK) return rc;
        rc = sealPage(m, KIND_JOURNAL, pgno, data, m->scratch);
        if (rc != SQLITE_OK) return rc;
        return f->real->pMethods->xWrite(f->real, m->scratch, amount, offset);
    }
    /* Journal headers (at sector boundaries): counts, sizes, a random nonce; no page content. */
    if (offset % 512 == 0 && amount <= 512 * 128) return f->real->pMethods->xWrite(f->real, data, amount, offset);
    return SQLITE_IOERR_WRITE;
}

/* ---------------------------------------------------------------- io methods */

static int cipherClose(sqlite3_file *file) {
    CipherFile *f = (CipherFile *)file;
    int rc = f->real->pMethods ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
    if (f->kind == KIND_MAIN) {
        EVP_CIPHER_CTX_free(f->ecb);
        EVP_CIPHER_CTX_free(f->gcm);
        if (f->scratch) {
            ood_cipher_wipe(f->scratch, 2 * ((size_t)f->pageSize + WAL_FRAME_HEADER_SIZE));
            free(f->scratch);
        }
        if (f->key) releaseKey(f->key);
    }
    f->scratch = NULL;
    f->key = NULL;
    return rc;
}

static int cipherRead(sqlite3_file *file, void *out, int amount, sqlite3_int64 offset) {
    CipherFile *f = (CipherFile *)file;
    switch (f->kind) {
    case KIND_MAIN: return readMain(f, out, amount, offset);
    case KIND_WAL: return readWal(f, out, amount, offset);
    case KIND_JOURNAL: return readJournal(f, out, amount, offset);
    default: return f->real->pMethods->xRead(f->real, out, amount, offset);
    }
}

static int cipherWrite(sqlite3_file *file, const void *data, int amount, sqlite3_int64 offset) {
    CipherFile *f = (CipherFile *)file;
    switch (f->kind) {
    case KIND_MAIN: return writeMain(f, data, amount, offset);
    case KIND_WAL: return writeWal(f, data, amount, offset);
    case KIND_JOURNAL: return writeJournal(f, data, amount, offset);
    default: return f->real->pMethods->xWrite(f->real, data, amount, offset);
    }
}

#define REAL(file) (((CipherFile *)(file))->real)

static int cipherTruncate(sqlite3_file *file, sqlite3_int64 size) { return REAL(file)->pMethods->xTruncate(REAL(file), size); }
static int cipherSync(sqlite3_file *file, int flags) { return REAL(file)->pMethods->xSync(REAL(file), flags); }
static int cipherFileSize(sqlite3_file *file, sqlite3_int64 *size) { return REAL(file)->pMethods->xFileSize(REAL(file), size); }
static int cipherLock(sqlite3_file *file, int lock) { return REAL(file)->pMethods->xLock(REAL(file), lock); }
static int cipherUnlock(sqlite3_file *file, int lock) { return REAL(file)->pMethods->xUnlock(REAL(file), lock); }
static int cipherCheckReservedLock(sqlite3_file *file, int *out) { return REAL(file)->pMethods->xCheckReservedLock(REAL(file), out); }
static int cipherSectorSize(sqlite3_file *file) { return REAL(file)->pMethods->xSectorSize(REAL(file)); }
static int cipherDeviceCharacteristics(sqlite3_file *file) { return REAL(file)->pMethods->xDeviceCharacteristics(REAL(file)); }

static int cipherFileControl(sqlite3_file *file, int op, void *arg) {
    if (op == SQLITE_FCNTL_VFSNAME) {
        char *inner = NULL;
        int rc = REAL(file)->pMethods->xFileControl(REAL(file), op, &inner);
        *(char **)arg = sqlite3_mprintf("%s/%z", OOD_CIPHER_VFS_NAME, rc == SQLITE_OK ? inner : NULL);
        return SQLITE_OK;
    }
    return REAL(file)->pMethods->xFileControl(REAL(file), op, arg);
}

static int cipherShmMap(sqlite3_file *file, int region, int size, int extend, void volatile **out) {
    return REAL(file)->pMethods->xShmMap(REAL(file), region, size, extend, out);
}
static int cipherShmLock(sqlite3_file *file, int offset, int n, int flags) { return REAL(file)->pMethods->xShmLock(REAL(file), offset, n, flags); }
static void cipherShmBarrier(sqlite3_file *file) { REAL(file)->pMethods->xShmBarrier(REAL(file)); }
static int cipherShmUnmap(sqlite3_file *file, int deleteFlag) { return REAL(file)->pMethods->xShmUnmap(REAL(file), deleteFlag); }

/* Memory-mapped pages would bypass decryption: no page is ever handed out, so SQLite reads. */
static int cipherFetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out) {
    (void)file; (void)offset; (void)amount;
    *out = NULL;
    return SQLITE_OK;
}
static int cipherUnfetch(sqlite3_file *file, sqlite3_int64 offset, void *page) {
    (void)file; (void)offset; (void)page;
    return SQLITE_OK;
}

static const sqlite3_io_methods cipherMethods = {
    3, cipherClose, cipherRead, cipherWrite, cipherTruncate, cipherSync, cipherFileSize, cipherLock,
    cipherUnlock, cipherCheckReservedLock, cipherFileControl, cipherSectorSize, cipherDeviceCharacteristics,
    cipherShmMap, cipherShmLock, cipherShmBarrier, cipherShmUnmap, cipherFetch, cipherUnfetch,
};

/* ---------------------------------------------------------------- the VFS */

static int setUpMain(CipherFile *f, const char *name) {
    const char *idText = sqlite3_uri_parameter(name, "ood_key");
    if (!idText) return SQLITE_CANTOPEN;
    f->key = retainKey(atoi(idText));
    if (!f->key) return SQLITE_CANTOPEN;
    f->ecb = EVP_CIPHER_CTX_new();
    f->gcm = EVP_CIPHER_CTX_new();
    if (!f->ecb || !f->gcm) return SQLITE_NOMEM;
    if (EVP_EncryptInit_ex(f->ecb, EVP_aes_256_ecb(), NULL, f->key->dataKey, NULL) != 1
        || EVP_CIPHER_CTX_set_padding(f->ecb, 0) != 1
        || EVP_CipherInit_ex(f->gcm, EVP_aes_256_gcm(), NULL, NULL, NULL, 1) != 1) return SQLITE_CANTOPEN;
    return SQLITE_OK;
}

static int cipherOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *outFlags) {
    CipherFile *f = (CipherFile *)file;
    memset(f, 0, sizeof *f);
    f->real = (sqlite3_file *)&f[1];
    int rc = SQLITE_OK;
    if (flags & SQLITE_OPEN_MAIN_DB) {
        f->kind = KIND_MAIN;
        f->main = f;
        rc = setUpMain(f, name);
    } else if (flags & (SQLITE_OPEN_WAL | SQLITE_OPEN_MAIN_JOURNAL)) {
        f->kind = (flags & SQLITE_OPEN_WAL) ? KIND_WAL : KIND_JOURNAL;
        CipherFile *m = name ? (CipherFile *)sqlite3_database_file_object(name) : NULL;
        if (!m || m->base.pMethods != &cipherMethods || m->kind != KIND_MAIN) rc = SQLITE_CANTOPEN;
        f->main = m;
    } else if (flags & SQLITE_OPEN_SUPER_JOURNAL) {
        f->kind = KIND_PLAIN;  /* file names only */
    } else {
        /* Temporary files cannot be tied to a key: an encrypted store keeps them in memory
         * (PRAGMA temp_store = MEMORY); one that would reach the disk is refused. */
        rc = SQLITE_CANTOPEN;
    }
    if (rc == SQLITE_OK) rc = underlying(vfs)->xOpen(underlying(vfs), name, f->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        if (f->kind == KIND_MAIN) {
            EVP_CIPHER_CTX_free(f->ecb);
            EVP_CIPHER_CTX_free(f->gcm);
            if (f->key) releaseKey(f->key);
        }
        f->key = NULL;
        f->base.pMethods = NULL;
        return rc;
    }
    f->base.pMethods = &cipherMethods;
    return SQLITE_OK;
}

static int cipherDelete(sqlite3_vfs *vfs, const char *name, int syncDir) { return underlying(vfs)->xDelete(underlying(vfs), name, syncDir); }
static int cipherAccess(sqlite3_vfs *vfs, const char *name, int flags, int *out) { return underlying(vfs)->xAccess(underlying(vfs), name, flags, out); }
static int cipherFullPathname(sqlite3_vfs *vfs, const char *name, int n, char *out) { return underlying(vfs)->xFullPathname(underlying(vfs), name, n, out); }
static void *cipherDlOpen(sqlite3_vfs *vfs, const char *path) { return underlying(vfs)->xDlOpen(underlying(vfs), path); }
static void cipherDlError(sqlite3_vfs *vfs, int n, char *out) { underlying(vfs)->xDlError(underlying(vfs), n, out); }
static void (*cipherDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) { return underlying(vfs)->xDlSym(underlying(vfs), handle, symbol); }
static void cipherDlClose(sqlite3_vfs *vfs, void *handle) { underlying(vfs)->xDlClose(underlying(vfs), handle); }
static int cipherRandomness(sqlite3_vfs *vfs, int n, char *out) { return underlying(vfs)->xRandomness(underlying(vfs), n, out); }
static int cipherSleep(sqlite3_vfs *vfs, int microseconds) { return underlying(vfs)->xSleep(underlying(vfs), microseconds); }
static int cipherCurrentTime(sqlite3_vfs *vfs, double *out) { return underlying(vfs)->xCurrentTime(underlying(vfs), out); }
static int cipherGetLastError(sqlite3_vfs *vfs, int n, char *out) { return underlying(vfs)->xGetLastError(underlying(vfs), n, out); }
static int cipherCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *out) { return underlying(vfs)->xCurrentTimeInt64(underlying(vfs), out); }

static sqlite3_vfs cipherVfs;
static pthread_once_t registerOnce = PTHREAD_ONCE_INIT;
static int registerResult = SQLITE_ERROR;

static void registerVfs(void) {
    sqlite3_vfs *base = sqlite3_vfs_find(NULL);
    if (!base) return;
    memset(&cipherVfs, 0, sizeof cipherVfs);
    cipherVfs.iVersion = 2;
    cipherVfs.szOsFile = (int)sizeof(CipherFile) + base->szOsFile;
    cipherVfs.mxPathname = base->mxPathname;
    cipherVfs.zName = OOD_CIPHER_VFS_NAME;
    cipherVfs.pAppData = base;
    cipherVfs.xOpen = cipherOpen;
    cipherVfs.xDelete = cipherDelete;
    cipherVfs.xAccess = cipherAccess;
    cipherVfs.xFullPathname = cipherFullPathname;
    cipherVfs.xDlOpen = cipherDlOpen;
    cipherVfs.xDlError = cipherDlError;
    cipherVfs.xDlSym = cipherDlSym;
    cipherVfs.xDlClose = cipherDlClose;
    cipherVfs.xRandomness = cipherRandomness;
    cipherVfs.xSleep = cipherSleep;
    cipherVfs.xCurrentTime = cipherCurrentTime;
    cipherVfs.xGetLastError = cipherGetLastError;
    cipherVfs.xCurrentTimeInt64 = cipherCurrentTimeInt64;
    registerResult = sqlite3_vfs_register(&cipherVfs, 0);
}

int ood_cipher_register_vfs(void) {
    pthread_once(&registerOnce, registerVfs);
    return registerResult;
}

const char *ood_cipher_default_vfs_name(void) {
    sqlite3_vfs *base = sqlite3_vfs_find(NULL);
    return base ? base->zName : "unix";
}
