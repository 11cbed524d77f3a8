/* jk_seal: seals a remote kernel's connection information for Enterprise
 * Gateway, as its launchers do (payload version 1): the JSON is encrypted
 * with AES-128 (ECB, PKCS#7 padding) under a fresh random key, the key is
 * encrypted with the gateway's RSA public key (PKCS#1 v1.5), and both go
 * base64-encoded into {"version": 1, "key": ..., "conn_info": ...}, itself
 * sent base64-encoded.
 *
 * The cryptography is OpenSSL's libcrypto (libcrypto.so.3, Debian's libssl3),
 * loaded with dlopen on first use: a kernel that is not started by the
 * gateway never needs it. */
#ifndef JK_SEAL_H
#define JK_SEAL_H

#include "cm_error.h"

/* Returns the sealed payload (a NUL-terminated base64 string, caller frees),
 * or NULL with err set: libcrypto not found, a public key that is not
 * base64 DER (the PEM body EG passes, without its BEGIN/END lines), or a
 * failing cipher call (OpenSSL's reason in the text). */
char *jk_seal_connection_info(const char *public_key_b64, const char *json, cm_error_t *err);

#endif
