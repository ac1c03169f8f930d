/*
 * roundtrip.c - the body of the codec fuzz targets (fuzz.h: fuzz_codec_one).
 *
 * Properties checked for every input, each one from src/lib/codec.h:
 *  - the decoder never crashes, reads only the len bytes it is given (the
 *    input is not NUL-terminated: ASan sees an overread) and never hangs;
 *  - it returns 0 or one of the documented decode codes;
 *  - its message is NUL-terminated within errlen, printable ASCII (untrusted
 *    text is escaped), "" on success, "KIND: ..." on failure;
 *  - a short message buffer gets the same code and a prefix of the same
 *    message; err NULL or errlen 0 gets the same code and nothing written;
 *  - the output struct is cleared first: decoding into a struct full of
 *    garbage gives the same bytes as decoding into a fresh one;
 *  - on success, the kind's own properties hold (fuzz_codec.check, e.g.
 *    successor: distinct slots, no leader succeeding itself);
 *  - on success, encode(decoded) succeeds, its output decodes to an identical
 *    struct (memcmp) and encoding that again gives the same bytes.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zkelect.h"
#include "codec.h"
#include "fuzz.h"

#define FUZZ_ERR_LEN    256     /* the message buffer of the main decode */
#define FUZZ_SHORT_MAX  48      /* the short buffer: 1..48 bytes */
#define FUZZ_GARBAGE    0xa5    /* fills a struct before a decode */

/* Codes a decode may return on input data (codec.h). */
static const int fuzz_decode_codes[] = {
    ZKELECT_ETOOBIG, ZKELECT_EUTF8, ZKELECT_ESYNTAX, ZKELECT_ETRAILING,
    ZKELECT_ERANGE, ZKELECT_ETYPE, ZKELECT_EMISSING, ZKELECT_EVERSION,
    ZKELECT_EBADVALUE, ZKELECT_ENOMEM,
};

static int
fuzz_decode_code(int rc)
{
    size_t i, n = sizeof(fuzz_decode_codes) / sizeof(fuzz_decode_codes[0]);

    for (i = 0; i < n; i++)
        if (rc == fuzz_decode_codes[i])
            return 1;
    return 0;
}

/* Escaped copy of a payload for a failure message (static storage). */
static const char *
fuzz_show(const char *s, size_t n)
{
    static char buf[4 * 1024 + 4];

    fuzz_escape(buf, sizeof(buf), s, n);
    return buf;
}

/* Check one decode's message (err, errlen bytes) against its code. */
static void
fuzz_check_message(const struct fuzz_codec *fc, const uint8_t *data,
    size_t size, int rc, const char *err, size_t errlen)
{
    size_t n, klen = strlen(fc->kind);

    if (memchr(err, '\0', errlen) == NULL)
        fuzz_fail(data, size, "%s: message not NUL-terminated within %zu bytes",
            zkelect_errname(rc), errlen);
    n = strlen(err);
    if (!fuzz_printable(err, n))
        fuzz_fail(data, size, "%s: message has unescaped bytes: %s",
            zkelect_errname(rc), fuzz_show(err, n));
    if (rc == 0) {
        if (n != 0)
            fuzz_fail(data, size, "success with a message: %s", err);
        return;
    }
    if (errlen < klen + 4)      /* too short to hold "KIND: x" */
        return;
    if (strncmp(err, fc->kind, klen) != 0 || err[klen] != ':' ||
        err[klen + 1] != ' ' || err[klen + 2] == '\0')
        fuzz_fail(data, size, "%s: message does not start with \"%s: \": %s",
            zkelect_errname(rc), fc->kind, err);
}

int
fuzz_codec_one(const struct fuzz_codec *fc, const uint8_t *data, size_t size)
{
    char err[FUZZ_ERR_LEN], *shorterr, *enc1 = NULL, *enc2 = NULL, canary;
    const char *buf = (const char *)data;
    size_t shortlen, n1 = 0, n2 = 0, off;
    void *s1, *s2;
    int len, rc, rc2;

    fuzz_result = 0;
    if (size > INT_MAX)         /* ZooKeeper data lengths are ints */
        return 0;
    len = (int)size;
    shortlen = 1 + size % FUZZ_SHORT_MAX;
    s1 = malloc(fc->size);      /* exact sizes: ASan sees any overflow */
    s2 = malloc(fc->size);
    shorterr = malloc(shortlen);
    if (s1 == NULL || s2 == NULL || shorterr == NULL)
        fuzz_fail(data, size, "out of memory in the harness");

    /* The decode under test. */
    memset(err, 'x', sizeof(err));
    memset(s1, FUZZ_GARBAGE, fc->size);
    rc = fc->decode(buf, len, s1, err, sizeof(err));
    fuzz_result = rc;
    if (rc != 0 && !fuzz_decode_code(rc))
        fuzz_fail(data, size, "undocumented decode result %d (%s): %s", rc,
            zkelect_errname(rc), err);
    fuzz_check_message(fc, data, size, rc, err, sizeof(err));

    /* The same with a short message buffer: same code, a prefix of it. */
    memset(shorterr, 'x', shortlen);
    memset(s2, FUZZ_GARBAGE, fc->size);
    rc2 = fc->decode(buf, len, s2, shorterr, shortlen);
    if (rc2 != rc)
        fuzz_fail(data, size, "errlen %zu changes the result: %s, then %s",
            shortlen, zkelect_errname(rc), zkelect_errname(rc2));
    fuzz_check_message(fc, data, size, rc, shorterr, shortlen);
    if (strlen(shorterr) != (strlen(err) < shortlen - 1 ? strlen(err) :
        shortlen - 1) || strncmp(shorterr, err, strlen(shorterr)) != 0)
        fuzz_fail(data, size, "errlen %zu: message \"%s\" is not a prefix of "
            "\"%s\"", shortlen, shorterr, err);
    if (rc == 0 && memcmp(s1, s2, fc->size) != 0)
        fuzz_fail(data, size, "the struct depends on what it held before");

    /* No message buffer (errlen 0): same code, nothing written. */
    canary = 'c';
    rc2 = fc->decode(buf, len, s2, size % 2 ? &canary : NULL, 0);
    if (rc2 != rc || canary != 'c')
        fuzz_fail(data, size, "errlen 0: %s (expected %s)%s",
            zkelect_errname(rc2), zkelect_errname(rc),
            canary != 'c' ? ", and the buffer was written" : "");
    if (rc != 0)
        goto out;
    if (fc->check != NULL)
        fc->check(s1, data, size);

    /* Round trip: encode, decode, compare; encode again, compare. */
    rc = fc->encode(s1, &enc1, &n1);
    if (rc != 0)
        fuzz_fail(data, size, "the decoded struct does not encode: %s",
            zkelect_errname(rc));
    if (enc1 == NULL || n1 != strlen(enc1) || n1 > ZKE_PAYLOAD_MAX)
        fuzz_fail(data, size, "encode: bad output (length %zu)", n1);
    memset(s2, FUZZ_GARBAGE, fc->size);
    rc = fc->decode(enc1, (int)n1, s2, err, sizeof(err));
    if (rc != 0)
        fuzz_fail(data, size, "its encoding does not decode: %s: %s; "
            "encoded: %s", zkelect_errname(rc), err, fuzz_show(enc1, n1));
    if (memcmp(s1, s2, fc->size) != 0) {
        for (off = 0; off < fc->size; off++)
            if (((unsigned char *)s1)[off] != ((unsigned char *)s2)[off])
                break;
        fuzz_fail(data, size, "round trip changed the struct (first difference "
            "at byte %zu of %zu); encoded: %s", off, fc->size,
            fuzz_show(enc1, n1));
    }
    rc = fc->encode(s2, &enc2, &n2);
    if (rc != 0 || n2 != n1 || memcmp(enc1, enc2, n1) != 0)
        fuzz_fail(data, size, "encoding is not stable: %s; first: %s",
            zkelect_errname(rc), fuzz_show(enc1, n1));

out:
    free(enc1);
    free(enc2);
    free(shorterr);
    free(s1);
    free(s2);
    return 0;
}
