/*
 * digest.c - SHA-1 (FIPS 180-4), base64 (RFC 4648) and ZooKeeper's digest
 * ids: "user:" + base64(SHA-1("user:password")).
 *
 * A small self-contained SHA-1 so that the build needs no libcrypto; it is
 * used for ACL ids only (ZooKeeper's digest scheme), never for security of
 * our own.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"

struct sha1 {
    uint32_t h[5];                /* chaining state */
    unsigned char block[64];      /* pending input */
    size_t nblock;                /* bytes in block */
    uint64_t total;               /* message length, bytes */
};

static uint32_t
rol32(uint32_t x, int n)
{
    return (x << n) | (x >> (32 - n));
}

static void
sha1_compress(struct sha1 *s, const unsigned char *p)
{
    uint32_t w[80], a, b, c, d, e, f, k, t;
    int i;

    for (i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    for (i = 16; i < 80; i++)
        w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    a = s->h[0];
    b = s->h[1];
    c = s->h[2];
    d = s->h[3];
    e = s->h[4];
    for (i = 0; i < 80; i++) {
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5a827999;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ed9eba1;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8f1bbcdc;
        } else {
            f = b ^ c ^ d;
            k = 0xca62c1d6;
        }
        t = rol32(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = rol32(b, 30);
        b = a;
        a = t;
    }
    s->h[0] += a;
    s->h[1] += b;
    s->h[2] += c;
    s->h[3] += d;
    s->h[4] += e;
}

static void
sha1_update(struct sha1 *s, const unsigned char *p, size_t n)
{
    size_t take;

    s->total += n;
    while (n > 0) {
        take = 64 - s->nblock;
        if (take > n)
            take = n;
        memcpy(s->block + s->nblock, p, take);
        s->nblock += take;
        p += take;
        n -= take;
        if (s->nblock == 64) {
            sha1_compress(s, s->block);
            s->nblock = 0;
        }
    }
}

void
cli_sha1(const void *data, size_t len, unsigned char out[20])
{
    static const unsigned char pad0x80 = 0x80, zero = 0;
    struct sha1 s;
    unsigned char lenbuf[8];
    uint64_t bits;
    int i;

    memset(&s, 0, sizeof(s));
    s.h[0] = 0x67452301;
    s.h[1] = 0xefcdab89;
    s.h[2] = 0x98badcfe;
    s.h[3] = 0x10325476;
    s.h[4] = 0xc3d2e1f0;
    sha1_update(&s, data, len);
    bits = s.total * 8;
    sha1_update(&s, &pad0x80, 1);
    while (s.nblock != 56)
        sha1_update(&s, &zero, 1);
    for (i = 0; i < 8; i++)
        lenbuf[i] = (unsigned char)(bits >> (56 - 8 * i));
    sha1_update(&s, lenbuf, 8);
    for (i = 0; i < 5; i++) {
        out[4 * i] = (unsigned char)(s.h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(s.h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(s.h[i] >> 8);
        out[4 * i + 3] = (unsigned char)s.h[i];
    }
    explicit_bzero(&s, sizeof(s));
}

void
cli_base64(const unsigned char *in, size_t n, char *out, size_t outlen)
{
    static const char tab[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t i, o = 0;
    uint32_t v;

    if (outlen < 4 * ((n + 2) / 3) + 1) {
        if (outlen)
            out[0] = '\0';
        return;
    }
    for (i = 0; i + 2 < n; i += 3) {
        v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = tab[v >> 18];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = tab[(v >> 6) & 63];
        out[o++] = tab[v & 63];
    }
    if (n - i == 1) {
        v = (uint32_t)in[i] << 16;
        out[o++] = tab[v >> 18];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = '=';
        out[o++] = '=';
    } else if (n - i == 2) {
        v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        out[o++] = tab[v >> 18];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = tab[(v >> 6) & 63];
        out[o++] = '=';
    }
    out[o] = '\0';
}

int
cli_digest_id(const char *cred, char *out, size_t outlen)
{
    const char *colon = cred ? strchr(cred, ':') : NULL;
    unsigned char md[20];
    char b64[29];
    int n;

    if (colon == NULL || colon == cred)
        return -1;
    cli_sha1(cred, strlen(cred), md);
    cli_base64(md, sizeof(md), b64, sizeof(b64));
    explicit_bzero(md, sizeof(md));
    n = snprintf(out, outlen, "%.*s:%s", (int)(colon - cred), cred, b64);
    return n < 0 || (size_t)n >= outlen ? -1 : 0;
}
