/* jk_seal: Enterprise Gateway's sealed connection information (see
 * jk_seal.h). libcrypto's declarations come from Debian's libssl-dev; its
 * code is loaded at run time. */
#include <dlfcn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jk_seal.h"

#define AES_KEY_BYTES 16 /* AES-128, as EG's launchers */
#define SEAL_VERSION 1   /* the payload layout EG 3.x decodes */

/* The libcrypto entry points used, typed from OpenSSL's own headers. */
static struct {
    void *handle;
    __typeof__(d2i_PUBKEY) *d2i_PUBKEY;
    __typeof__(EVP_PKEY_free) *EVP_PKEY_free;
    __typeof__(EVP_PKEY_CTX_new) *EVP_PKEY_CTX_new;
    __typeof__(EVP_PKEY_CTX_free) *EVP_PKEY_CTX_free;
    __typeof__(EVP_PKEY_encrypt_init) *EVP_PKEY_encrypt_init;
    __typeof__(EVP_PKEY_CTX_set_rsa_padding) *EVP_PKEY_CTX_set_rsa_padding;
    __typeof__(EVP_PKEY_encrypt) *EVP_PKEY_encrypt;
    __typeof__(EVP_CIPHER_CTX_new) *EVP_CIPHER_CTX_new;
    __typeof__(EVP_CIPHER_CTX_free) *EVP_CIPHER_CTX_free;
    __typeof__(EVP_aes_128_ecb) *EVP_aes_128_ecb;
    __typeof__(EVP_EncryptInit_ex) *EVP_EncryptInit_ex;
    __typeof__(EVP_EncryptUpdate) *EVP_EncryptUpdate;
    __typeof__(EVP_EncryptFinal_ex) *EVP_EncryptFinal_ex;
    __typeof__(ERR_get_error) *ERR_get_error;
    __typeof__(ERR_error_string_n) *ERR_error_string_n;
} ssl;

static pthread_once_t ssl_once = PTHREAD_ONCE_INIT;
static char ssl_missing[256]; /* why libcrypto could not be loaded */

#define BIND(name)                                                                      \
    ((ssl.name = (__typeof__(ssl.name))dlsym(ssl.handle, #name)) != NULL ||             \
     (snprintf(ssl_missing, sizeof ssl_missing, "libcrypto has no %s", #name), 0))

static void load_ssl(void)
{
    ssl.handle = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!ssl.handle) {
        snprintf(ssl_missing, sizeof ssl_missing,
                 "cannot load libcrypto.so.3 (install libssl3): %s", dlerror());
        return;
    }
    if (BIND(d2i_PUBKEY) && BIND(EVP_PKEY_free) && BIND(EVP_PKEY_CTX_new) &&
        BIND(EVP_PKEY_CTX_free) && BIND(EVP_PKEY_encrypt_init) &&
        BIND(EVP_PKEY_CTX_set_rsa_padding) && BIND(EVP_PKEY_encrypt) &&
        BIND(EVP_CIPHER_CTX_new) && BIND(EVP_CIPHER_CTX_free) && BIND(EVP_aes_128_ecb) &&
        BIND(EVP_EncryptInit_ex) && BIND(EVP_EncryptUpdate) && BIND(EVP_EncryptFinal_ex) &&
        BIND(ERR_get_error) && BIND(ERR_error_string_n))
        return;
    dlclose(ssl.handle);
    ssl.handle = NULL;
}

/* The check for every libcrypto call: ok is its success test. Records
 * OpenSSL's first queued reason with the call's name. */
#define SSL_CHECK(ok, what, err) ssl_check((ok), (what), (err), __FILE__, __LINE__)

static int ssl_check(int ok, const char *what, cm_error_t *err, const char *file, int line)
{
    if (ok)
        return 0;
    unsigned long code = ssl.ERR_get_error();
    char reason[256] = "no reason given";
    if (code)
        ssl.ERR_error_string_n(code, reason, sizeof reason);
    cm_error_setf(err, file, line, -1, "%s failed: %s", what, reason);
    return -1;
}

/* Returns base64 of n bytes (caller frees), or NULL when out of memory. */
static char *to_base64(const unsigned char *bytes, size_t n)
{
    size_t size = sodium_base64_encoded_len(n, sodium_base64_VARIANT_ORIGINAL);
    char *text = malloc(size);
    if (text)
        sodium_bin2base64(text, size, bytes, n, sodium_base64_VARIANT_ORIGINAL);
    return text;
}

/* Encrypts key with the RSA public key given as base64 DER. Returns the
 * ciphertext's base64 (caller frees), or NULL with err set. */
static char *wrap_key(const char *public_key_b64, const unsigned char *key, cm_error_t *err)
{
    size_t b64_len = strlen(public_key_b64);
    unsigned char *der = malloc(b64_len + 1);
    size_t der_len = 0;
    if (!der || sodium_base642bin(der, b64_len + 1, public_key_b64, b64_len, "\n\r ", &der_len,
                                  NULL, sodium_base64_VARIANT_ORIGINAL) != 0) {
        free(der);
        CM_ERROR(err, -1, "the gateway's public key is not base64");
        return NULL;
    }
    const unsigned char *p = der;
    EVP_PKEY *pkey = ssl.d2i_PUBKEY(NULL, &p, (long)der_len);
    free(der);
    if (SSL_CHECK(pkey != NULL, "reading the gateway's public key", err) != 0)
        return NULL;
    char *wrapped_b64 = NULL;
    unsigned char wrapped[1024]; /* an RSA block: 128 bytes for EG's 1024-bit key */
    size_t wrapped_len = sizeof wrapped;
    EVP_PKEY_CTX *ctx = ssl.EVP_PKEY_CTX_new(pkey, NULL);
    if (SSL_CHECK(ctx != NULL, "EVP_PKEY_CTX_new", err) == 0 &&
        SSL_CHECK(ssl.EVP_PKEY_encrypt_init(ctx) > 0, "EVP_PKEY_encrypt_init", err) == 0 &&
        SSL_CHECK(ssl.EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) > 0,
                  "setting PKCS#1 v1.5 padding", err) == 0 &&
        SSL_CHECK(ssl.EVP_PKEY_encrypt(ctx, wrapped, &wrapped_len, key, AES_KEY_BYTES) > 0,
                  "RSA encryption of the AES key", err) == 0)
        wrapped_b64 = to_base64(wrapped, wrapped_len);
    ssl.EVP_PKEY_CTX_free(ctx);
    ssl.EVP_PKEY_free(pkey);
    return wrapped_b64;
}

/* Encrypts text with AES-128-ECB under key, PKCS#7-padded. Returns the
 * ciphertext's base64 (caller frees), or NULL with err set. */
static char *encrypt_text(const unsigned char *key, const char *text, cm_error_t *err)
{
    size_t n = strlen(text);
    if (n > (size_t)1 << 30) {
        CM_ERROR(err, -1, "connection information too long");
        return NULL;
    }
    unsigned char *out = malloc(n + 16); /* padding adds at most one block */
    EVP_CIPHER_CTX *ctx = ssl.EVP_CIPHER_CTX_new();
    int len = 0, tail = 0;
    char *b64 = NULL;
    if (out && SSL_CHECK(ctx != NULL, "EVP_CIPHER_CTX_new", err) == 0 &&
        SSL_CHECK(ssl.EVP_EncryptInit_ex(ctx, ssl.EVP_aes_128_ecb(), NULL, key, NULL) > 0,
                  "EVP_EncryptInit_ex", err) == 0 &&
        SSL_CHECK(ssl.EVP_EncryptUpdate(ctx, out, &len, (const unsigned char *)text, (int)n) > 0,
                  "EVP_EncryptUpdate", err) == 0 &&
        SSL_CHECK(ssl.EVP_EncryptFinal_ex(ctx, out + len, &tail) > 0, "EVP_EncryptFinal_ex",
                  err) == 0)
        b64 = to_base64(out, (size_t)(len + tail));
    ssl.EVP_CIPHER_CTX_free(ctx);
    free(out);
    return b64;
}

char *jk_seal_connection_info(const char *public_key_b64, const char *json, cm_error_t *err)
{
    pthread_once(&ssl_once, load_ssl);
    if (!ssl.handle) {
        CM_ERROR(err, -1, "%s", ssl_missing);
        return NULL;
    }
    if (sodium_init() < 0) {
        CM_ERROR(err, -1, "libsodium failed to initialise");
        return NULL;
    }
    unsigned char key[AES_KEY_BYTES];
    randombytes_buf(key, sizeof key);
    char *wrapped = wrap_key(public_key_b64, key, err);
    char *sealed = wrapped ? encrypt_text(key, json, err) : NULL;
    sodium_memzero(key, sizeof key);
    char *payload_b64 = NULL;
    json_t *payload = sealed ? json_pack("{s:i, s:s, s:s}", "version", SEAL_VERSION, "key",
                                         wrapped, "conn_info", sealed)
                             : NULL;
    char *payload_text = payload ? json_dumps(payload, JSON_COMPACT) : NULL;
    if (payload_text)
        payload_b64 = to_base64((const unsigned char *)payload_text, strlen(payload_text));
    if (sealed && !payload_b64)
        CM_ERROR(err, -1, "out of memory sealing the connection information");
    free(payload_text);
    json_decref(payload);
    free(sealed);
    free(wrapped);
    return payload_b64;
}
