"""Decrypts an OfflineOData encrypted store following only docs/ENCRYPTION.md.

An independent reader: it shares no code with the engine (Python's `cryptography` package does the
AES), so the format is what the document says and a user can recover a store with the key and the
document alone.

    python independent_reader.py (--key-hex HEX | --passphrase TEXT) STORE OUT.db

writes the plaintext database to OUT.db (with the committed frames of STORE-wal applied) and
prints a summary; `python -m pytest test_independent_reader.py` checks it against the engine.
"""
import argparse
import hashlib
import hmac
import json
import os
import struct
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC
from cryptography.hazmat.primitives import hashes

HEADER_SIZE = 56
RESERVE = 96


class FormatError(Exception):
    pass


def read_header(data):
    header = data[:HEADER_SIZE]
    if len(header) < HEADER_SIZE or header[:8] != b"OODCRYPT":
        raise FormatError("not an encrypted OfflineOData store")
    if hashlib.sha256(header[:52]).digest()[:4] != header[52:56]:
        raise FormatError("the header is damaged")
    version, kdf, page_size, iterations = struct.unpack(">HHII", header[8:20])
    return {"version": version, "kdf": kdf, "page_size": page_size, "iterations": iterations,
            "salt": header[20:36], "check": header[36:52], "bytes": header}


def derive(header, raw_key=None, passphrase=None):
    if header["kdf"] == 0:
        if raw_key is None or len(raw_key) != 32:
            raise FormatError("the store needs a raw 32-byte key")
        master = raw_key
    elif header["kdf"] == 1:
        if passphrase is None:
            raise FormatError("the store needs a passphrase")
        master = PBKDF2HMAC(algorithm=hashes.SHA256(), length=32, salt=header["salt"],
                            iterations=header["iterations"]).derive(passphrase.encode("utf-8"))
    else:
        raise FormatError("unknown key derivation %d" % header["kdf"])
    check = hmac.new(master, b"OfflineOData key check" + header["salt"], hashlib.sha256).digest()[:16]
    if not hmac.compare_digest(check, header["check"]):
        raise FormatError("wrong key")
    return hmac.new(master, b"OfflineOData page key" + header["salt"], hashlib.sha256).digest()


def decrypt_page(data_key, image, kind, pgno, header_bytes=None):
    """The plaintext page (content then RESERVE zero bytes) of one page image."""
    p = len(image)
    content = p - RESERVE
    random = image[p - 40:p - 16]
    selector, nonce = random[:12], random[12:]
    tag = image[p - 16:]
    ecb = Cipher(algorithms.AES(data_key), modes.ECB()).encryptor()
    page_key = ecb.update(selector + b"\x00\x00\x00\x01" + selector + b"\x00\x00\x00\x02") + ecb.finalize()
    aad = kind + struct.pack(">I", pgno)
    if kind == b"D" and pgno == 1:
        aad += image[:HEADER_SIZE]
    plaintext = AESGCM(page_key).decrypt(nonce, image[HEADER_SIZE:HEADER_SIZE + content] + tag, aad)
    return plaintext + bytes(RESERVE)


def committed_wal_frames(wal, page_size):
    """(pgno, image) of the WAL's committed frames of the current generation, in order."""
    if len(wal) < 32:
        return []
    magic, _, wal_page_size, _, salt1, salt2 = struct.unpack(">IIIIII", wal[:24])
    if magic not in (0x377F0682, 0x377F0683) or wal_page_size != page_size:
        return []
    frames, pending = [], []
    offset = 32
    while offset + 24 + page_size <= len(wal):
        pgno, commit, fsalt1, fsalt2 = struct.unpack(">IIII", wal[offset:offset + 16])
        if (fsalt1, fsalt2) != (salt1, salt2):
            break
        pending.append((pgno, wal[offset + 24:offset + 24 + page_size]))
        if commit:
            frames += pending
            pending = []
        offset += 24 + page_size
    return frames


def decrypt_store(path, out_path, raw_key=None, passphrase=None):
    with open(path, "rb") as f:
        data = f.read()
    header = read_header(data)
    page_size = header["page_size"]
    data_key = derive(header, raw_key, passphrase)
    pages = {}
    for index in range(len(data) // page_size):
        pgno = index + 1
        pages[pgno] = decrypt_page(data_key, data[index * page_size:(index + 1) * page_size], b"D", pgno)
    wal_path = path + "-wal"
    if os.path.exists(wal_path):
        with open(wal_path, "rb") as f:
            wal = f.read()
        for pgno, image in committed_wal_frames(wal, page_size):
            pages[pgno] = decrypt_page(data_key, image, b"W", pgno)
    # Page 1's header says how many pages the database has now.
    count = struct.unpack(">I", pages[1][28:32])[0] or max(pages)
    with open(out_path, "wb") as out:
        for pgno in range(1, count + 1):
            out.write(pages.get(pgno, bytes(page_size)))
    return header


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--key-hex")
    group.add_argument("--passphrase")
    parser.add_argument("store")
    parser.add_argument("out")
    args = parser.parse_args(argv)
    raw = bytes.fromhex(args.key_hex) if args.key_hex else None
    try:
        header = decrypt_store(args.store, args.out, raw_key=raw, passphrase=args.passphrase)
    except FormatError as error:
        print("cannot decrypt: %s" % error, file=sys.stderr)
        return 2
    print(json.dumps(summary(args.out, header)))
    return 0


def summary(db_path, header):
    """What the plaintext database holds, read with Python's sqlite3: its tables' row counts, the
    queued requests, and every text value (for a search)."""
    import sqlite3
    db = sqlite3.connect(db_path)
    check = db.execute("PRAGMA integrity_check").fetchone()[0]
    tables = [row[0] for row in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")]
    counts = {name: db.execute('SELECT count(*) FROM "%s"' % name.replace('"', '""')).fetchone()[0] for name in tables}
    texts = []
    for name in tables:
        for row in db.execute('SELECT * FROM "%s"' % name.replace('"', '""')):
            texts += [value if isinstance(value, str) else value.decode("utf-8", "replace")
                      for value in row if isinstance(value, (str, bytes))]
    db.close()
    return {"page_size": header["page_size"], "integrity": check, "counts": counts, "texts": texts}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
