/*
 * escape.c - untrusted text (znode payloads, node names, argv, file names)
 * made safe for one log or terminal line.
 */
#include "config.h"

#include "zkecommon.h"

void
zke_escape(const char *in, size_t inlen, char *out, size_t outlen)
{
    static const char hex[] = "0123456789abcdef";
    size_t i, o = 0;

    if (outlen == 0)
        return;
    for (i = 0; i < inlen && o + 5 < outlen; i++) {
        unsigned char c = (unsigned char)in[i];
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            out[o++] = (char)c;
        } else {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    if (i < inlen && o + 3 < outlen) {
        out[o++] = '.';
        out[o++] = '.';
        out[o++] = '.';
    }
    out[o] = '\0';
}
