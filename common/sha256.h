/* sha256.h -- SHA-256 (FIPS 180-4) of a byte string, for stable pseudonyms such as a hidden
 * device serial. Not for secrets: no keying, no constant-time claims. */
#ifndef FT_SHA256_H
#define FT_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* The 32-byte digest of data[0..len). */
void sha256(const void *data, size_t len, uint8_t digest[32]);
/* The digest as 64 lowercase hex digits and a NUL. */
void sha256_hex(const void *data, size_t len, char hex[65]);

#endif
