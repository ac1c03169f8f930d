/*
 * fuzz.h - shared by the fuzz targets (tests/fuzz/fuzz_*.c), their harness
 * helpers and the corpus replay driver (tests/fuzz/driver.c).
 *
 * Every target is one LLVMFuzzerTestOneInput() that never returns on a
 * violated property: it prints what is wrong to stderr and calls abort(), so
 * libFuzzer keeps the input as a crash and the replay driver counts a
 * failure. Built two ways from the same sources (tests/fuzz/Makefile.inc):
 *
 *  - tests/fuzz/fuzz_NAME (configure --enable-fuzzing, clang): linked with
 *    -fsanitize=fuzzer, libFuzzer's main() drives it (tests/fuzz/run-fuzz.sh);
 *  - tests/fuzz/replay_NAME (always, in TESTS): linked with driver.c, which
 *    feeds it every file of tests/fuzz/corpus/NAME/ and of
 *    tests/fuzz/crashes/NAME/.
 *
 * A target reports the code of the call under test in fuzz_result (0 or a
 * negative ZKELECT_E* code); the replay driver compares it with what a seed's
 * file name promises (see driver.c). libFuzzer ignores it.
 */
#ifndef ZKELECT_FUZZ_H
#define ZKELECT_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* The libFuzzer entry point; returns 0 (inputs are never rejected). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The target's name ("member", ..., "ini"): its corpus directory. */
extern const char fuzz_target[];

/* Result of the last input: 0 or a negative ZKELECT_E* code. */
extern int fuzz_result;

/* Define the two variables above; once per target program. */
#define FUZZ_TARGET(name)               \
    const char fuzz_target[] = (name);  \
    int fuzz_result

/*
 * A violated property: print "fuzz_NAME: MESSAGE" and the input (escaped,
 * truncated) to stderr, then abort(). Never returns.
 */
void fuzz_fail(const uint8_t *data, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

/*
 * 1 if the n bytes of s are printable ASCII (0x20..0x7e) only: what every
 * error message must be once untrusted text in it has been escaped.
 */
int fuzz_printable(const char *s, size_t n);

/*
 * Escape n bytes of s into dst (size bytes): printable ASCII as is, anything
 * else as \xNN; "..." when cut. For messages about inputs.
 */
void fuzz_escape(char *dst, size_t size, const void *s, size_t n);

/* One payload kind of src/lib/codec.h, for the round-trip harness. */
struct fuzz_codec {
    const char *kind;                   /* "member": also the message prefix */
    size_t size;                        /* sizeof its struct */
    int (*decode)(const char *buf, int len, void *out, char *err,
        size_t errlen);                 /* zke_KIND_decode() */
    int (*encode)(const void *in, char **out, size_t *outlen);
                                        /* zke_KIND_encode() */
    void (*check)(const void *decoded, const uint8_t *data, size_t size);
                                        /* the kind's own properties of a
                                           struct it decoded, fuzz_fail()
                                           on a violation; or NULL */
};

/*
 * The codec targets' body (tests/fuzz/roundtrip.c): decode the input; on
 * success run fc->check (if any), encode, decode again and require identical
 * structs and identical encodings; on failure require a documented code and
 * a one-line printable message that starts with "KIND: ". Sets fuzz_result;
 * aborts on a violation.
 */
int fuzz_codec_one(const struct fuzz_codec *fc, const uint8_t *data,
    size_t size);

/*
 * Define one codec target: the typed wrappers, its struct fuzz_codec and
 * LLVMFuzzerTestOneInput. kind is the bare word of zke_KIND_decode(); check
 * is the kind's property function (declared before) or NULL.
 */
#define FUZZ_CODEC_TARGET(kind) FUZZ_CODEC_TARGET_CHECK(kind, NULL)
#define FUZZ_CODEC_TARGET_CHECK(kind, check)                                \
    FUZZ_TARGET(#kind);                                                     \
    static int                                                              \
    fuzz_decode(const char *buf, int len, void *out, char *err,             \
        size_t errlen)                                                      \
    {                                                                       \
        return zke_##kind##_decode(buf, len, out, err, errlen);             \
    }                                                                       \
    static int                                                              \
    fuzz_encode(const void *in, char **out, size_t *outlen)                 \
    {                                                                       \
        return zke_##kind##_encode(in, out, outlen);                        \
    }                                                                       \
    static const struct fuzz_codec fuzz_codec = {                           \
        #kind, sizeof(struct zke_##kind), fuzz_decode, fuzz_encode, check   \
    };                                                                      \
    int                                                                     \
    LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                \
    {                                                                       \
        return fuzz_codec_one(&fuzz_codec, data, size);                     \
    }

#endif /* ZKELECT_FUZZ_H */
