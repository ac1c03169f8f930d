/* fuzz.c - helpers shared by every fuzz target (see fuzz.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

#define FUZZ_SHOW_MAX 512   /* bytes of the input shown when a property fails */

void
fuzz_escape(char *dst, size_t size, const void *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = s;
    size_t i, o = 0;

    if (size == 0)
        return;
    for (i = 0; i < n && o + 5 <= size; i++) {
        if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\') {
            dst[o++] = (char)p[i];
        } else {
            dst[o++] = '\\';
            dst[o++] = 'x';
            dst[o++] = hex[p[i] >> 4];
            dst[o++] = hex[p[i] & 0xf];
        }
    }
    if (i < n && o + 4 <= size) {
        dst[o++] = '.';
        dst[o++] = '.';
        dst[o++] = '.';
    }
    dst[o] = '\0';
}

int
fuzz_printable(const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
            return 0;
    return 1;
}

void
fuzz_fail(const uint8_t *data, size_t size, const char *fmt, ...)
{
    static char shown[FUZZ_SHOW_MAX * 4 + 4];
    va_list ap;

    fflush(stdout);
    fprintf(stderr, "fuzz_%s: ", fuzz_target);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fuzz_escape(shown, sizeof(shown), data, size > FUZZ_SHOW_MAX ?
        FUZZ_SHOW_MAX : size);
    fprintf(stderr, "\nfuzz_%s: input (%zu bytes): %s%s\n", fuzz_target, size,
        shown, size > FUZZ_SHOW_MAX ? "..." : "");
    abort();
}
