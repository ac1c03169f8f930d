/*
 * codec.c - the JSON payloads of a group's znodes (see codec.h for the rules).
 *
 * Sections, in order: messages, value rules, raw checks (UTF-8 and a strict
 * JSON scanner), parsing, decoding helpers, encoding helpers, then one block
 * per payload kind (member, elected, leader, config, switchover, history,
 * successor).
 *
 * Decoding runs in two stages. The raw bytes are first checked by our own
 * code: size, UTF-8, then a strict RFC 8259 scan that also rejects \u
 * escapes cJSON would turn into lone surrogates or a NUL that truncates a C
 * string, and finds trailing data. Only data that passed is handed to cJSON,
 * so a cJSON failure afterwards can only mean it ran out of memory. The
 * second stage walks the cJSON tree field by field.
 *
 * Encoding validates each value with the same rule table the decoder uses
 * (codec_str_check, struct codec_int) while it builds the cJSON tree.
 */
#include "config.h"

#include <float.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "zkelect.h"
#include "zkecommon.h"
#include "codec.h"

#define CODEC_SHOW_MAX   40  /* bytes of an untrusted string shown in a message */
#define CODEC_ESC_SIZE   (CODEC_SHOW_MAX * 4 + 4) /* escaped, "..." and NUL */
#define CODEC_FIELD_SIZE (32 + CODEC_ESC_SIZE)    /* a field path in messages */
#define CODEC_DEPTH_MAX  64  /* nesting of JSON objects and arrays */
#define CODEC_NUMBER_MAX 63  /* characters of a number literal (cJSON < 1.7.15 truncates longer ones) */
#define CODEC_FIELDS_MAX 19  /* known fields of one object (the longest list, elected, has 18) */

#define CODEC_OPTIONAL 0x0   /* the field may be absent */
#define CODEC_REQUIRED 0x1   /* the field must be present */
#define CODEC_NULLABLE 0x2   /* JSON null stands for "" (and "" is written as null) */

/* Run a step that returns 0 or a code; on a code, jump to the function's "out:". */
#define CODEC_TRY(expr)         \
    do {                        \
        if ((rc = (expr)) != 0) \
            goto out;           \
    } while (0)

/* ======================================================================== */
/* Messages                                                                 */
/* ======================================================================== */

/* One decode in progress. */
struct codec_dec {
    const char *kind;   /* payload kind in messages: "member", ... (static) */
    char *err;          /* the caller's message buffer, or NULL */
    size_t errlen;      /* its size in bytes */
};

static int codec_fail(struct codec_dec *d, int rc, const char *field,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * Write "kind: field \"FIELD\": MESSAGE" (or "kind: MESSAGE" when field is
 * NULL) into the caller's buffer, truncated, and return rc. field must be
 * trusted or escaped already.
 */
static int
codec_fail(struct codec_dec *d, int rc, const char *field, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (d->err == NULL || d->errlen == 0)
        return rc;
    if (field != NULL)
        n = snprintf(d->err, d->errlen, "%s: field \"%s\": ", d->kind, field);
    else
        n = snprintf(d->err, d->errlen, "%s: ", d->kind);
    if (n >= 0 && (size_t)n < d->errlen) {
        va_start(ap, fmt);
        vsnprintf(d->err + n, d->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/*
 * Escape len bytes of untrusted s into dst (size bytes, at least 1) for a
 * message: printable ASCII as is, '"' and '\' with a backslash, any other
 * byte as \xNN; at most CODEC_SHOW_MAX bytes of s, then "...".
 */
static void
codec_escape(char *dst, size_t size, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char c;
    size_t i, o = 0;

    for (i = 0; i < len && i < CODEC_SHOW_MAX && o + 5 <= size; i++) {
        c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            dst[o++] = '\\';
            dst[o++] = (char)c;
        } else if (c >= 0x20 && c < 0x7f) {
            dst[o++] = (char)c;
        } else {
            dst[o++] = '\\';
            dst[o++] = 'x';
            dst[o++] = hex[c >> 4];
            dst[o++] = hex[c & 0xf];
        }
    }
    if (i < len && o + 4 <= size) {
        memcpy(dst + o, "...", 3);
        o += 3;
    }
    dst[o] = '\0';
}

/* "a string", "a number", ... for a type mismatch message. */
static const char *
codec_type_name(const cJSON *it)
{
    if (cJSON_IsString(it))
        return "a string";
    if (cJSON_IsNumber(it))
        return "a number";
    if (cJSON_IsBool(it))
        return "a boolean";
    if (cJSON_IsNull(it))
        return "null";
    if (cJSON_IsArray(it))
        return "an array";
    if (cJSON_IsObject(it))
        return "an object";
    return "an unknown value";
}

/* ======================================================================== */
/* Value rules (shared by the decoder and the encoder)                      */
/* ======================================================================== */

/* Kinds of string values. */
enum codec_kind {
    CODEC_ID,       /* node id */
    CODEC_ID0,      /* "" or a node id */
    CODEC_SITE,     /* "" or a site */
    CODEC_SITEKEY,  /* a site, not "" (config "sites" keys) */
    CODEC_NAME,     /* policy name, tag, option key, exclusion reason */
    CODEC_NAME0,    /* "" or a name (config "policy") */
    CODEC_TEXT,     /* UTF-8 without control characters */
    CODEC_GUID,     /* "" or ZKE_GUID_LEN lower-case hex digits */
    CODEC_ZNODE,    /* "" or an election znode name (word characters) */
    CODEC_ZNODE1    /* an election znode name, not "" (successor) */
};

/* What each kind is called in messages, and its rule. */
static const struct codec_kind_info {
    const char *what;   /* noun for messages */
    const char *rule;   /* the rule, for messages */
} codec_kinds[] = {
    [CODEC_ID] = { "node id",
        "1 to 64 bytes of A-Z a-z 0-9 . _ -, not starting with '.' or '-'" },
    [CODEC_ID0] = { "node id",
        "empty, or 1 to 64 bytes of A-Z a-z 0-9 . _ -, not starting with '.' or '-'" },
    [CODEC_SITE] = { "site",
        "empty, or up to 64 bytes of A-Z a-z 0-9 . _ -, not starting with '.' or '-'" },
    [CODEC_SITEKEY] = { "site",
        "1 to 64 bytes of A-Z a-z 0-9 . _ -, not starting with '.' or '-'" },
    [CODEC_NAME] = { "name",
        "1 to 64 bytes of A-Z a-z 0-9 . _ -, not starting with '.' or '-'" },
    [CODEC_NAME0] = { "name",
        "empty, or 1 to 64 bytes of A-Z a-z 0-9 . _ -, not starting with '.' or '-'" },
    [CODEC_TEXT] = { "text", "no control characters" },
    [CODEC_GUID] = { "guid", "empty, or 32 lower-case hex digits" },
    [CODEC_ZNODE] = { "znode name",
        "empty, or up to 120 bytes of A-Z a-z 0-9 . _ -, not starting with '.' or '-'" },
    [CODEC_ZNODE1] = { "znode name",
        "1 to 120 bytes of A-Z a-z 0-9 . _ -, not starting with '.' or '-'" },
};

/* An integer field's range. */
struct codec_int {
    int64_t min;        /* smallest value */
    int64_t max;        /* largest value */
    bool zero;          /* 0 is accepted too (means "default") */
};

static const struct codec_int codec_int_epoch = { 1, (int64_t)ZKE_EPOCH_MAX, false };
static const struct codec_int codec_int_count = { 0, (int64_t)ZKE_EPOCH_MAX, false };
static const struct codec_int codec_int_cversion = { -1, INT32_MAX, false };
static const struct codec_int codec_int_priority = {
    ZKE_PRIORITY_MIN, ZKE_PRIORITY_MAX, false };
static const struct codec_int codec_int_remaining = {
    0, (int64_t)ZKE_REMAINING_MAX, false };
static const struct codec_int codec_int_watchdog = {
    ZKE_WATCHDOG_MIN, ZKE_WATCHDOG_MAX, true };
static const struct codec_int codec_int_exclude = { 1, ZKE_EXCLUDE_MAX, true };
static const struct codec_int codec_int_settle = { 0, ZKE_SETTLE_MAX, false };
static const struct codec_int codec_int_delay = { 0, ZKE_DELAY_MAX, false };
static const struct codec_int codec_int_expect = { 1, ZKE_EXPECT_MAX, true };
static const struct codec_int codec_int_wall = { 1, (int64_t)ZKE_EPOCH_MAX, false };
static const struct codec_int codec_int_leaders = { 1, ZKE_LEADERS_MAX, false };
static const struct codec_int codec_int_slot = { 0, ZKE_LEADERS_MAX - 1, false };
static const struct codec_int codec_int_slotnum = { 1, ZKE_LEADERS_MAX - 1, false };
static const struct codec_int codec_int_zkversion = { 0, INT32_MAX, false };

/* Non-zero for [A-Za-z0-9._-] (no locale involved). */
static int
codec_word_char(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
        (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/* Offset of the first byte of s that does not start valid UTF-8, or len. */
static size_t
codec_utf8_bad(const unsigned char *s, size_t len)
{
    unsigned char c, lo, hi;
    size_t i = 0, k, n;

    while (i < len) {
        c = s[i];
        lo = 0x80;
        hi = 0xbf;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            n = 1;
        } else if (c == 0xe0) {
            n = 2;
            lo = 0xa0;  /* no overlongs */
        } else if (c == 0xed) {
            n = 2;
            hi = 0x9f;  /* no UTF-16 surrogates */
        } else if (c >= 0xe1 && c <= 0xef) {
            n = 2;
        } else if (c == 0xf0) {
            n = 3;
            lo = 0x90;  /* no overlongs */
        } else if (c >= 0xf1 && c <= 0xf3) {
            n = 3;
        } else if (c == 0xf4) {
            n = 3;
            hi = 0x8f;  /* nothing above U+10FFFF */
        } else {
            return i;   /* continuation byte, 0xc0, 0xc1, 0xf5..0xff */
        }
        if (len - i - 1 < n || s[i + 1] < lo || s[i + 1] > hi)
            return i;
        for (k = 2; k <= n; k++)
            if ((s[i + k] & 0xc0) != 0x80)
                return i;
        i += n + 1;
    }
    return len;
}

/*
 * Check a string value s of len bytes against a kind and its maximum length.
 * Returns 0, ZKELECT_ETOOBIG or ZKELECT_EBADVALUE.
 */
static int
codec_str_check(enum codec_kind kind, size_t max, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i;

    if (len > max)
        return ZKELECT_ETOOBIG;
    switch (kind) {
    case CODEC_TEXT:
        if (codec_utf8_bad(u, len) != len)
            return ZKELECT_EBADVALUE;
        for (i = 0; i < len; i++)
            if (u[i] < 0x20 || u[i] == 0x7f)
                return ZKELECT_EBADVALUE;
        return 0;
    case CODEC_GUID:
        if (len == 0)
            return 0;
        if (len != ZKE_GUID_LEN)
            return ZKELECT_EBADVALUE;
        for (i = 0; i < len; i++)
            if (!((u[i] >= '0' && u[i] <= '9') || (u[i] >= 'a' && u[i] <= 'f')))
                return ZKELECT_EBADVALUE;
        return 0;
    case CODEC_ID0:
    case CODEC_SITE:
    case CODEC_NAME0:
    case CODEC_ZNODE:
        if (len == 0)
            return 0;
        break;
    case CODEC_ID:
    case CODEC_SITEKEY:
    case CODEC_NAME:
    case CODEC_ZNODE1:
        if (len == 0)
            return ZKELECT_EBADVALUE;
        break;
    }
    if (u[0] == '.' || u[0] == '-')
        return ZKELECT_EBADVALUE;
    for (i = 0; i < len; i++)
        if (!codec_word_char(u[i]))
            return ZKELECT_EBADVALUE;
    return 0;
}

/* 1 if s (NULL allowed) is valid for kind, else 0. */
static int
codec_valid(enum codec_kind kind, size_t max, const char *s)
{
    if (s == NULL)
        return 0;
    return codec_str_check(kind, max, s, strlen(s)) == 0;
}

int
zke_id_valid(const char *id)
{
    return codec_valid(CODEC_ID, ZKE_ID_MAX, id);
}

int
zke_site_valid(const char *site)
{
    return codec_valid(CODEC_SITE, ZKE_SITE_MAX, site);
}

int
zke_name_valid(const char *name)
{
    return codec_valid(CODEC_NAME, ZKE_NAME_MAX, name);
}

/*
 * Index of the first entry of an array of n strings (the first at base, one
 * every stride bytes) that equals an earlier one, or -1.
 */
static int
codec_dup(const char *base, size_t stride, int n)
{
    int i, j;

    for (j = 1; j < n; j++)
        for (i = 0; i < j; i++)
            if (strcmp(base + (size_t)i * stride, base + (size_t)j * stride) == 0)
                return j;
    return -1;
}

/* ======================================================================== */
/* Strict JSON scanner (raw bytes, before cJSON)                            */
/* ======================================================================== */

/* A scan of the raw data. */
struct codec_scan {
    const unsigned char *p; /* the data (borrowed) */
    size_t len;             /* its length */
    size_t pos;             /* current offset; the error's offset on failure */
    const char *msg;        /* what is wrong (static), set on failure */
};

/* States of the scanner: what may come next. */
enum codec_state {
    CODEC_S_VALUE,          /* a value */
    CODEC_S_VALUE_OR_END,   /* a value or ']' (just after '[') */
    CODEC_S_KEY,            /* a key (after ',' in an object) */
    CODEC_S_KEY_OR_END,     /* a key or '}' (just after '{') */
    CODEC_S_COLON,          /* ':' after a key */
    CODEC_S_NEXT,           /* ',' or the bracket that closes the container */
    CODEC_S_DONE            /* the top-level value is complete */
};

static int
codec_scan_fail(struct codec_scan *sc, int rc, const char *msg)
{
    sc->msg = msg;
    return rc;
}

static int
codec_is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int
codec_is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* Read 4 hex digits at offset at into *out; -1 if they are not there. */
static int
codec_hex4(const struct codec_scan *sc, size_t at, unsigned *out)
{
    unsigned v = 0, c;
    size_t i;

    if (at > sc->len || sc->len - at < 4)
        return -1;
    for (i = at; i < at + 4; i++) {
        c = sc->p[i];
        if (c >= '0' && c <= '9')
            v = v * 16 + (c - '0');
        else if (c >= 'a' && c <= 'f')
            v = v * 16 + (c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v = v * 16 + (c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

/* A string starting at the '"' at sc->pos. */
static int
codec_scan_string(struct codec_scan *sc)
{
    unsigned u, lo;
    unsigned char c;

    sc->pos++;
    for (;;) {
        if (sc->pos >= sc->len)
            return codec_scan_fail(sc, ZKELECT_ESYNTAX, "unterminated string");
        c = sc->p[sc->pos];
        if (c == '"') {
            sc->pos++;
            return 0;
        }
        if (c < 0x20)
            return codec_scan_fail(sc, ZKELECT_ESYNTAX,
                "control character in a string");
        if (c != '\\') {
            sc->pos++;
            continue;
        }
        if (sc->pos + 1 >= sc->len)
            return codec_scan_fail(sc, ZKELECT_ESYNTAX, "unterminated string");
        c = sc->p[sc->pos + 1];
        if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' ||
            c == 'n' || c == 'r' || c == 't') {
            sc->pos += 2;
            continue;
        }
        if (c != 'u' || codec_hex4(sc, sc->pos + 2, &u) != 0)
            return codec_scan_fail(sc, ZKELECT_ESYNTAX, "invalid escape");
        if (u == 0)
            return codec_scan_fail(sc, ZKELECT_EUTF8, "\\u0000 escape");
        if (u >= 0xdc00 && u <= 0xdfff)
            return codec_scan_fail(sc, ZKELECT_EUTF8,
                "\\u escape of a lone low surrogate");
        if (u >= 0xd800 && u <= 0xdbff) {
            if (sc->pos + 7 >= sc->len || sc->p[sc->pos + 6] != '\\' ||
                sc->p[sc->pos + 7] != 'u' ||
                codec_hex4(sc, sc->pos + 8, &lo) != 0 ||
                lo < 0xdc00 || lo > 0xdfff)
                return codec_scan_fail(sc, ZKELECT_EUTF8,
                    "\\u escape of a lone high surrogate");
            sc->pos += 12;
        } else {
            sc->pos += 6;
        }
    }
}

/* A number starting at sc->pos (RFC 8259 grammar). */
static int
codec_scan_number(struct codec_scan *sc)
{
    size_t start = sc->pos;

    if (sc->p[sc->pos] == '-')
        sc->pos++;
    if (sc->pos < sc->len && sc->p[sc->pos] == '0') {
        sc->pos++;
    } else if (sc->pos < sc->len && codec_is_digit(sc->p[sc->pos])) {
        while (sc->pos < sc->len && codec_is_digit(sc->p[sc->pos]))
            sc->pos++;
    } else {
        return codec_scan_fail(sc, ZKELECT_ESYNTAX, "invalid number");
    }
    if (sc->pos < sc->len && sc->p[sc->pos] == '.') {
        sc->pos++;
        if (sc->pos >= sc->len || !codec_is_digit(sc->p[sc->pos]))
            return codec_scan_fail(sc, ZKELECT_ESYNTAX, "invalid number");
        while (sc->pos < sc->len && codec_is_digit(sc->p[sc->pos]))
            sc->pos++;
    }
    if (sc->pos < sc->len && (sc->p[sc->pos] == 'e' || sc->p[sc->pos] == 'E')) {
        sc->pos++;
        if (sc->pos < sc->len && (sc->p[sc->pos] == '+' || sc->p[sc->pos] == '-'))
            sc->pos++;
        if (sc->pos >= sc->len || !codec_is_digit(sc->p[sc->pos]))
            return codec_scan_fail(sc, ZKELECT_ESYNTAX, "invalid number");
        while (sc->pos < sc->len && codec_is_digit(sc->p[sc->pos]))
            sc->pos++;
    }
    if (sc->pos - start > CODEC_NUMBER_MAX) {
        sc->pos = start;
        return codec_scan_fail(sc, ZKELECT_ERANGE,
            "number longer than 63 characters");
    }
    return 0;
}

/* true, false or null at sc->pos. */
static int
codec_scan_literal(struct codec_scan *sc)
{
    static const char *const words[] = { "true", "false", "null" };
    size_t i, n;

    for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        n = strlen(words[i]);
        if (sc->len - sc->pos >= n && memcmp(sc->p + sc->pos, words[i], n) == 0) {
            sc->pos += n;
            return 0;
        }
    }
    return codec_scan_fail(sc, ZKELECT_ESYNTAX, "unexpected character");
}

/*
 * Scan the whole data: one JSON value, optional whitespace around it.
 * Returns 0, ZKELECT_ESYNTAX, ZKELECT_EUTF8 (bad \u escape),
 * ZKELECT_ETRAILING or ZKELECT_ERANGE (huge number), with sc->pos and
 * sc->msg describing the failure.
 */
static int
codec_scan(struct codec_scan *sc)
{
    unsigned char stack[CODEC_DEPTH_MAX];  /* '{' or '[' of each open container */
    enum codec_state st = CODEC_S_VALUE;
    unsigned char c;
    int depth = 0, rc;

    for (;;) {
        while (sc->pos < sc->len && codec_is_ws(sc->p[sc->pos]))
            sc->pos++;
        if (sc->pos == sc->len) {
            if (st == CODEC_S_DONE)
                return 0;
            return codec_scan_fail(sc, ZKELECT_ESYNTAX, "unexpected end of data");
        }
        c = sc->p[sc->pos];
        switch (st) {
        case CODEC_S_DONE:
            return codec_scan_fail(sc, ZKELECT_ETRAILING,
                "data after the JSON value");
        case CODEC_S_COLON:
            if (c != ':')
                return codec_scan_fail(sc, ZKELECT_ESYNTAX, "expected ':'");
            sc->pos++;
            st = CODEC_S_VALUE;
            continue;
        case CODEC_S_NEXT:
            if (c == ',') {
                sc->pos++;
                st = stack[depth - 1] == '{' ? CODEC_S_KEY : CODEC_S_VALUE;
                continue;
            }
            if (c != (stack[depth - 1] == '{' ? '}' : ']'))
                return codec_scan_fail(sc, ZKELECT_ESYNTAX,
                    "expected ',' or a closing bracket");
            sc->pos++;
            depth--;
            st = depth == 0 ? CODEC_S_DONE : CODEC_S_NEXT;
            continue;
        case CODEC_S_KEY_OR_END:
            if (c == '}') {
                sc->pos++;
                depth--;
                st = depth == 0 ? CODEC_S_DONE : CODEC_S_NEXT;
                continue;
            }
            __attribute__((fallthrough));
        case CODEC_S_KEY:
            if (c != '"')
                return codec_scan_fail(sc, ZKELECT_ESYNTAX, "expected a string key");
            if ((rc = codec_scan_string(sc)) != 0)
                return rc;
            st = CODEC_S_COLON;
            continue;
        case CODEC_S_VALUE_OR_END:
            if (c == ']') {
                sc->pos++;
                depth--;
                st = depth == 0 ? CODEC_S_DONE : CODEC_S_NEXT;
                continue;
            }
            __attribute__((fallthrough));
        case CODEC_S_VALUE:
            if (c == '{' || c == '[') {
                if (depth == CODEC_DEPTH_MAX)
                    return codec_scan_fail(sc, ZKELECT_ESYNTAX,
                        "nested deeper than 64 levels");
                stack[depth++] = c;
                sc->pos++;
                st = c == '{' ? CODEC_S_KEY_OR_END : CODEC_S_VALUE_OR_END;
                continue;
            }
            if (c == '"')
                rc = codec_scan_string(sc);
            else if (c == '-' || codec_is_digit(c))
                rc = codec_scan_number(sc);
            else
                rc = codec_scan_literal(sc);
            if (rc != 0)
                return rc;
            st = depth == 0 ? CODEC_S_DONE : CODEC_S_NEXT;
            continue;
        }
    }
}

/* ======================================================================== */
/* Parsing                                                                  */
/* ======================================================================== */

/* cJSON's parser records its last error in a global; keep parses apart. */
static pthread_mutex_t codec_parse_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Check and parse ZooKeeper data into *rootp (a JSON object, the caller
 * deletes it with cJSON_Delete). Writes the message on failure.
 */
static int
codec_parse(struct codec_dec *d, const char *buf, int len, cJSON **rootp)
{
    struct codec_scan sc;
    cJSON *root;
    size_t bad;
    char *copy;
    int rc;

    *rootp = NULL;
    if (len < -1 || (len > 0 && buf == NULL))
        return codec_fail(d, ZKELECT_EINVAL, NULL, "invalid arguments");
    if (len == -1)
        return codec_fail(d, ZKELECT_EMISSING, NULL, "no data (NULL znode data)");
    if (len > ZKE_PAYLOAD_MAX)
        return codec_fail(d, ZKELECT_ETOOBIG, NULL,
            "payload of %d bytes, more than %d", len, ZKE_PAYLOAD_MAX);
    if (len == 0)
        return codec_fail(d, ZKELECT_ESYNTAX, NULL, "malformed JSON: empty data");
    bad = codec_utf8_bad((const unsigned char *)buf, (size_t)len);
    if (bad < (size_t)len)
        return codec_fail(d, ZKELECT_EUTF8, NULL, "invalid UTF-8 at byte %zu", bad);

    memset(&sc, 0, sizeof(sc));
    sc.p = (const unsigned char *)buf;
    sc.len = (size_t)len;
    if ((rc = codec_scan(&sc)) != 0) {
        if (rc == ZKELECT_ESYNTAX)
            return codec_fail(d, rc, NULL, "malformed JSON at byte %zu: %s",
                sc.pos, sc.msg);
        return codec_fail(d, rc, NULL, "%s at byte %zu", sc.msg, sc.pos);
    }

    /* A NUL-terminated copy: cJSON never sees bytes past the data. */
    if ((copy = cJSON_malloc((size_t)len + 1)) == NULL)
        return codec_fail(d, ZKELECT_ENOMEM, NULL, "out of memory");
    memcpy(copy, buf, (size_t)len);
    copy[len] = '\0';
    pthread_mutex_lock(&codec_parse_lock);
    root = cJSON_ParseWithLengthOpts(copy, (size_t)len, NULL, 0);
    pthread_mutex_unlock(&codec_parse_lock);
    cJSON_free(copy);
    if (root == NULL) /* the scanner accepted it: only an allocation can fail */
        return codec_fail(d, ZKELECT_ENOMEM, NULL, "out of memory while parsing");
    if (!cJSON_IsObject(root)) {
        rc = codec_fail(d, ZKELECT_ETYPE, NULL, "expected a JSON object, got %s",
            codec_type_name(root));
        cJSON_Delete(root);
        return rc;
    }
    *rootp = root;
    return 0;
}

/* ======================================================================== */
/* Decoding helpers                                                         */
/* ======================================================================== */

/* The known fields of one JSON object. */
struct codec_obj {
    const cJSON *item[CODEC_FIELDS_MAX]; /* value of names[i], or NULL (borrowed) */
    const char *const *names;            /* known names, NULL-terminated (static) */
    const char *prefix;                  /* path in messages: "" or "excluded[3]." */
};

/* The path of field name of o, for messages. */
static void
codec_field_path(char *dst, size_t size, const struct codec_obj *o, const char *name)
{
    snprintf(dst, size, "%s%s", o->prefix, name);
}

/*
 * Collect the known fields of a JSON object; a known key given twice is
 * ZKELECT_EBADVALUE (cJSON keeps both). Unknown keys are ignored.
 */
static int
codec_obj_init(struct codec_dec *d, struct codec_obj *o, const cJSON *json,
    const char *const *names, const char *prefix)
{
    char field[CODEC_FIELD_SIZE];
    const cJSON *it;
    int i;

    memset(o, 0, sizeof(*o));
    o->names = names;
    o->prefix = prefix;
    cJSON_ArrayForEach(it, json) {
        for (i = 0; i < CODEC_FIELDS_MAX && names[i] != NULL; i++) {
            if (it->string == NULL || strcmp(it->string, names[i]) != 0)
                continue;
            if (o->item[i] != NULL) {
                codec_field_path(field, sizeof(field), o, names[i]);
                return codec_fail(d, ZKELECT_EBADVALUE, field, "duplicate key");
            }
            o->item[i] = it;
            break;
        }
    }
    return 0;
}

/* The value of known field name, or NULL when absent. */
static const cJSON *
codec_obj_get(const struct codec_obj *o, const char *name)
{
    int i;

    for (i = 0; i < CODEC_FIELDS_MAX && o->names[i] != NULL; i++)
        if (strcmp(o->names[i], name) == 0)
            return o->item[i];
    return NULL;
}

/* Check the string s (trusted length len) and copy it to out (outsize bytes). */
static int
codec_text_in(struct codec_dec *d, const char *field, const char *s,
    enum codec_kind kind, size_t max, char *out, size_t outsize)
{
    char esc[CODEC_ESC_SIZE];
    size_t len = strlen(s);
    int rc;

    rc = codec_str_check(kind, max, s, len);
    if (rc == 0 && len >= outsize)
        rc = ZKELECT_ETOOBIG;   /* not reached: outsize is max + 1 */
    if (rc == ZKELECT_ETOOBIG)
        return codec_fail(d, rc, field, "longer than %zu bytes", max);
    if (rc != 0) {
        codec_escape(esc, sizeof(esc), s, len);
        return codec_fail(d, rc, field, "invalid %s \"%s\" (%s)",
            codec_kinds[kind].what, esc, codec_kinds[kind].rule);
    }
    memcpy(out, s, len + 1);
    return 0;
}

/* A string value (or null with CODEC_NULLABLE) into out. */
static int
codec_str(struct codec_dec *d, const char *field, const cJSON *it, int flags,
    enum codec_kind kind, size_t max, char *out, size_t outsize)
{
    if ((flags & CODEC_NULLABLE) && cJSON_IsNull(it)) {
        out[0] = '\0';
        return 0;
    }
    if (!cJSON_IsString(it) || it->valuestring == NULL)
        return codec_fail(d, ZKELECT_ETYPE, field, "expected a string%s, got %s",
            (flags & CODEC_NULLABLE) ? " or null" : "", codec_type_name(it));
    return codec_text_in(d, field, it->valuestring, kind, max, out, outsize);
}

/* An integer value within spec into *out; the range is tested on the double. */
static int
codec_int(struct codec_dec *d, const char *field, const cJSON *it,
    const struct codec_int *spec, int64_t *out)
{
    double v;
    int64_t i;

    if (!cJSON_IsNumber(it))
        return codec_fail(d, ZKELECT_ETYPE, field, "expected an integer, got %s",
            codec_type_name(it));
    v = it->valuedouble;
    if (spec->zero && v == 0) {
        *out = 0;
        return 0;
    }
    /* Both bounds are within +-2^53, so the comparison is exact and the
     * cast below is defined; NaN fails both comparisons. */
    if (v >= (double)spec->min && v <= (double)spec->max) {
        i = (int64_t)v;
        if ((double)i == v) {
            *out = i;
            return 0;
        }
    }
    if (spec->zero)
        return codec_fail(d, ZKELECT_ERANGE, field,
            "expected 0 or an integer from %" PRId64 " to %" PRId64,
            spec->min, spec->max);
    return codec_fail(d, ZKELECT_ERANGE, field,
        "expected an integer from %" PRId64 " to %" PRId64, spec->min, spec->max);
}

/* Look up field name of o; absent: ZKELECT_EMISSING if required, else *itp = NULL. */
static int
codec_lookup(struct codec_dec *d, const struct codec_obj *o, const char *name,
    int flags, char *field, size_t fieldsize, const cJSON **itp)
{
    codec_field_path(field, fieldsize, o, name);
    *itp = codec_obj_get(o, name);
    if (*itp == NULL && (flags & CODEC_REQUIRED))
        return codec_fail(d, ZKELECT_EMISSING, field, "missing");
    return 0;
}

static int
codec_get_str(struct codec_dec *d, const struct codec_obj *o, const char *name,
    int flags, enum codec_kind kind, size_t max, char *out, size_t outsize)
{
    char field[CODEC_FIELD_SIZE];
    const cJSON *it;
    int rc;

    if ((rc = codec_lookup(d, o, name, flags, field, sizeof(field), &it)) != 0)
        return rc;
    if (it == NULL)
        return 0;
    return codec_str(d, field, it, flags, kind, max, out, outsize);
}

/* The object has field NAME (one of its known names). */
static bool
codec_has(const struct codec_obj *o, const char *name)
{
    int i;

    for (i = 0; o->names[i] != NULL; i++)
        if (strcmp(o->names[i], name) == 0)
            return o->item[i] != NULL;
    return false;
}

/* An integer field; *out is 0 when an optional field is absent. */
static int
codec_get_int(struct codec_dec *d, const struct codec_obj *o, const char *name,
    int flags, const struct codec_int *spec, int64_t *out)
{
    char field[CODEC_FIELD_SIZE];
    const cJSON *it;
    int rc;

    *out = 0;
    if ((rc = codec_lookup(d, o, name, flags, field, sizeof(field), &it)) != 0)
        return rc;
    if (it == NULL)
        return 0;
    return codec_int(d, field, it, spec, out);
}

static int
codec_get_bool(struct codec_dec *d, const struct codec_obj *o, const char *name,
    int flags, bool *out)
{
    char field[CODEC_FIELD_SIZE];
    const cJSON *it;
    int rc;

    if ((rc = codec_lookup(d, o, name, flags, field, sizeof(field), &it)) != 0)
        return rc;
    if (it == NULL)
        return 0;
    if (!cJSON_IsBool(it))
        return codec_fail(d, ZKELECT_ETYPE, field, "expected a boolean, got %s",
            codec_type_name(it));
    *out = cJSON_IsTrue(it) != 0;
    return 0;
}

/*
 * An array or object field (type cJSON_Array or cJSON_Object) with at most
 * max entries; *itp is NULL when an optional field is absent.
 */
static int
codec_get_container(struct codec_dec *d, const struct codec_obj *o,
    const char *name, int flags, int type, int max, const cJSON **itp)
{
    char field[CODEC_FIELD_SIZE];
    int rc;

    if ((rc = codec_lookup(d, o, name, flags, field, sizeof(field), itp)) != 0)
        return rc;
    if (*itp == NULL)
        return 0;
    if (type == cJSON_Array && !cJSON_IsArray(*itp))
        return codec_fail(d, ZKELECT_ETYPE, field, "expected an array, got %s",
            codec_type_name(*itp));
    if (type == cJSON_Object && !cJSON_IsObject(*itp))
        return codec_fail(d, ZKELECT_ETYPE, field, "expected an object, got %s",
            codec_type_name(*itp));
    if (cJSON_GetArraySize(*itp) > max)
        return codec_fail(d, ZKELECT_ETOOBIG, field, "more than %d entries", max);
    return 0;
}

/* An element of an array that must be an object with the given fields. */
static int
codec_element(struct codec_dec *d, struct codec_obj *o, const cJSON *it,
    const char *array, int i, char *prefix, size_t prefixsize,
    const char *const *names)
{
    char field[CODEC_FIELD_SIZE];

    snprintf(prefix, prefixsize, "%s[%d].", array, i);
    if (!cJSON_IsObject(it)) {
        snprintf(field, sizeof(field), "%s[%d]", array, i);
        return codec_fail(d, ZKELECT_ETYPE, field, "expected an object, got %s",
            codec_type_name(it));
    }
    return codec_obj_init(d, o, it, names, prefix);
}

/*
 * Start a decode: clear the message, parse, collect the top-level fields and
 * check "v". On success the caller deletes *rootp.
 */
static int
codec_begin(struct codec_dec *d, const char *buf, int len, cJSON **rootp,
    struct codec_obj *o, const char *const *names)
{
    const cJSON *v;
    double vd;
    int rc;

    if (d->err != NULL && d->errlen > 0)
        d->err[0] = '\0';
    if ((rc = codec_parse(d, buf, len, rootp)) != 0)
        return rc;
    if ((rc = codec_obj_init(d, o, *rootp, names, "")) != 0)
        return rc;
    if ((v = codec_obj_get(o, "v")) == NULL)
        return codec_fail(d, ZKELECT_EMISSING, "v", "missing");
    if (!cJSON_IsNumber(v))
        return codec_fail(d, ZKELECT_ETYPE, "v", "expected an integer, got %s",
            codec_type_name(v));
    vd = v->valuedouble;
    /* Finite, and integral: any double beyond 2^53 is. */
    if (!(vd >= -DBL_MAX && vd <= DBL_MAX) ||
        (vd > -9007199254740992.0 && vd < 9007199254740992.0 &&
        (double)(int64_t)vd != vd))
        return codec_fail(d, ZKELECT_ETYPE, "v",
            "expected an integer, got a non-integral number");
    if (vd != ZKE_FORMAT_VERSION)
        return codec_fail(d, ZKELECT_EVERSION, "v",
            "format version %g is not supported (expected %d)", vd,
            ZKE_FORMAT_VERSION);
    return 0;
}

/* The end of every decoder: free the tree, clear the struct on failure. */
static int
codec_end(cJSON *root, int rc, void *out, size_t outsize)
{
    cJSON_Delete(root);
    if (rc != 0)
        memset(out, 0, outsize);
    return rc;
}

/* ======================================================================== */
/* Encoding helpers                                                         */
/* ======================================================================== */

/* One encode in progress: helpers record the first failure and go on. */
struct codec_enc {
    int rc;             /* 0, ZKELECT_EINVAL or ZKELECT_ENOMEM */
};

static void
codec_enc_error(struct codec_enc *e, int rc)
{
    if (e->rc == 0)
        e->rc = rc;
}

/* Note an allocation that returned p (NULL = failed). */
static void
codec_enc_alloc(struct codec_enc *e, const void *p)
{
    if (p == NULL)
        codec_enc_error(e, ZKELECT_ENOMEM);
}

/* 1 if s (an array of size bytes) holds a valid NUL-terminated value of kind. */
static int
codec_enc_check(struct codec_enc *e, enum codec_kind kind, size_t max,
    const char *s, size_t size)
{
    size_t len = strnlen(s, size);

    if (len == size || codec_str_check(kind, max, s, len) != 0) {
        codec_enc_error(e, ZKELECT_EINVAL);
        return 0;
    }
    return 1;
}

/* Add string field name; with CODEC_NULLABLE "" is written as null. */
static void
codec_put_str(struct codec_enc *e, cJSON *obj, const char *name, int flags,
    enum codec_kind kind, size_t max, const char *s, size_t size)
{
    if ((flags & CODEC_NULLABLE) && size > 0 && s[0] == '\0') {
        codec_enc_alloc(e, cJSON_AddNullToObject(obj, name));
        return;
    }
    if (codec_enc_check(e, kind, max, s, size))
        codec_enc_alloc(e, cJSON_AddStringToObject(obj, name, s));
}

/* Append a string to an array. */
static void
codec_push_str(struct codec_enc *e, cJSON *array, enum codec_kind kind,
    size_t max, const char *s, size_t size)
{
    cJSON *it;

    if (!codec_enc_check(e, kind, max, s, size))
        return;
    if ((it = cJSON_CreateString(s)) == NULL || !cJSON_AddItemToArray(array, it)) {
        cJSON_Delete(it);
        codec_enc_error(e, ZKELECT_ENOMEM);
    }
}

/* Add an integer field, written exactly (never through a double). */
static void
codec_put_int(struct codec_enc *e, cJSON *obj, const char *name,
    const struct codec_int *spec, int64_t v)
{
    char num[24];

    if (!(spec->zero && v == 0) && (v < spec->min || v > spec->max)) {
        codec_enc_error(e, ZKELECT_EINVAL);
        return;
    }
    snprintf(num, sizeof(num), "%" PRId64, v);
    codec_enc_alloc(e, cJSON_AddRawToObject(obj, name, num));
}

static void
codec_put_u64(struct codec_enc *e, cJSON *obj, const char *name,
    const struct codec_int *spec, uint64_t v)
{
    if (v > (uint64_t)INT64_MAX) {
        codec_enc_error(e, ZKELECT_EINVAL);
        return;
    }
    codec_put_int(e, obj, name, spec, (int64_t)v);
}

static void
codec_put_bool(struct codec_enc *e, cJSON *obj, const char *name, bool v)
{
    codec_enc_alloc(e, cJSON_AddBoolToObject(obj, name, v));
}

/* Add an array (type cJSON_Array) or object field; NULL on failure. */
static cJSON *
codec_put_container(struct codec_enc *e, cJSON *obj, const char *name, int type)
{
    cJSON *it;

    it = type == cJSON_Array ? cJSON_AddArrayToObject(obj, name) :
        cJSON_AddObjectToObject(obj, name);
    codec_enc_alloc(e, it);
    return it;
}

/* Append a new object to an array; NULL on failure. */
static cJSON *
codec_push_obj(struct codec_enc *e, cJSON *array)
{
    cJSON *it;

    if ((it = cJSON_CreateObject()) == NULL || !cJSON_AddItemToArray(array, it)) {
        cJSON_Delete(it);
        codec_enc_error(e, ZKELECT_ENOMEM);
        return NULL;
    }
    return it;
}

/* Start an encode: check the output arguments, create the root with "v". */
static cJSON *
codec_enc_begin(struct codec_enc *e, const void *in, char **out, size_t *outlen)
{
    cJSON *root;

    e->rc = 0;
    if (out != NULL)
        *out = NULL;
    if (outlen != NULL)
        *outlen = 0;
    if (in == NULL || out == NULL || outlen == NULL) {
        e->rc = ZKELECT_EINVAL;
        return NULL;
    }
    root = cJSON_CreateObject();
    codec_enc_alloc(e, root);
    codec_enc_alloc(e, cJSON_AddRawToObject(root, "v", "1"));
    return root;
}

/* Finish an encode: print, copy into a malloc'd buffer, free the tree. */
static int
codec_enc_end(struct codec_enc *e, cJSON *root, char **out, size_t *outlen)
{
    char *text = NULL, *copy;
    size_t n;

    if (e->rc == 0 && (text = cJSON_PrintUnformatted(root)) == NULL)
        e->rc = ZKELECT_ENOMEM;
    cJSON_Delete(root);
    if (e->rc != 0)
        return e->rc;
    /* cJSON may use other allocation hooks; the caller frees with free(). */
    n = strlen(text);
    if (n > ZKE_PAYLOAD_MAX) {  /* not reached: see codec.h */
        cJSON_free(text);
        return ZKELECT_ETOOBIG;
    }
    copy = malloc(n + 1);
    if (copy != NULL)
        memcpy(copy, text, n + 1);
    cJSON_free(text);
    if (copy == NULL)
        return ZKELECT_ENOMEM;
    *out = copy;
    *outlen = n;
    return 0;
}

/* ======================================================================== */
/* member (nodes/<id>)                                                      */
/* ======================================================================== */

static const char *const codec_member_fields[] = {
    "v", "id", "site", "priority", "host", "pid", "version", "tags",
    "eligible", "healthy", "guid", "max_leaders", "wake", "fast_handover", NULL
};

int
zke_member_encode(const struct zke_member *m, char **out, size_t *outlen)
{
    struct codec_enc e;
    cJSON *root, *tags;
    int i;

    root = codec_enc_begin(&e, m, out, outlen);
    if (e.rc == 0 && (m->ntags < 0 || m->ntags > ZKE_TAGS_MAX))
        e.rc = ZKELECT_EINVAL;
    if (e.rc != 0)
        return codec_enc_end(&e, root, out, outlen);
    codec_put_str(&e, root, "id", 0, CODEC_ID, ZKE_ID_MAX, m->id, sizeof(m->id));
    codec_put_str(&e, root, "site", 0, CODEC_SITE, ZKE_SITE_MAX, m->site,
        sizeof(m->site));
    codec_put_int(&e, root, "priority", &codec_int_priority, m->priority);
    codec_put_str(&e, root, "host", 0, CODEC_TEXT, ZKE_HOST_MAX, m->host,
        sizeof(m->host));
    codec_put_int(&e, root, "pid", &codec_int_count, m->pid);
    codec_put_str(&e, root, "version", 0, CODEC_TEXT, ZKE_VERSION_MAX,
        m->version, sizeof(m->version));
    tags = codec_put_container(&e, root, "tags", cJSON_Array);
    for (i = 0; i < m->ntags; i++)
        codec_push_str(&e, tags, CODEC_NAME, ZKE_NAME_MAX, m->tags[i],
            sizeof(m->tags[i]));
    if (e.rc == 0 && codec_dup(m->tags[0], sizeof(m->tags[0]), m->ntags) >= 0)
        e.rc = ZKELECT_EINVAL;
    codec_put_bool(&e, root, "eligible", m->eligible);
    codec_put_bool(&e, root, "healthy", m->healthy);
    codec_put_str(&e, root, "guid", 0, CODEC_GUID, ZKE_GUID_LEN, m->guid,
        sizeof(m->guid));
    /* 0: a struct nobody filled in; written as releases before slots did */
    if (m->max_leaders != 0)
        codec_put_u64(&e, root, "max_leaders", &codec_int_leaders,
            m->max_leaders);
    if (m->wake)
        codec_put_bool(&e, root, "wake", true);
    if (m->fast_handover)
        codec_put_bool(&e, root, "fast_handover", true);
    return codec_enc_end(&e, root, out, outlen);
}

int
zke_member_decode(const char *buf, int len, struct zke_member *m, char *err,
    size_t errlen)
{
    struct codec_dec d = { "member", err, errlen };
    char field[CODEC_FIELD_SIZE];
    const cJSON *tags, *t;
    struct codec_obj o;
    cJSON *root = NULL;
    int64_t v;
    int rc, i, j;

    if (m == NULL)
        return codec_fail(&d, ZKELECT_EINVAL, NULL, "invalid arguments");
    memset(m, 0, sizeof(*m));
    CODEC_TRY(codec_begin(&d, buf, len, &root, &o, codec_member_fields));
    CODEC_TRY(codec_get_str(&d, &o, "id", CODEC_REQUIRED, CODEC_ID, ZKE_ID_MAX,
        m->id, sizeof(m->id)));
    CODEC_TRY(codec_get_str(&d, &o, "site", CODEC_REQUIRED, CODEC_SITE,
        ZKE_SITE_MAX, m->site, sizeof(m->site)));
    CODEC_TRY(codec_get_int(&d, &o, "priority", CODEC_REQUIRED,
        &codec_int_priority, &v));
    m->priority = (int32_t)v;
    CODEC_TRY(codec_get_str(&d, &o, "host", CODEC_OPTIONAL, CODEC_TEXT,
        ZKE_HOST_MAX, m->host, sizeof(m->host)));
    CODEC_TRY(codec_get_int(&d, &o, "pid", CODEC_OPTIONAL, &codec_int_count, &v));
    m->pid = v;
    CODEC_TRY(codec_get_str(&d, &o, "version", CODEC_OPTIONAL, CODEC_TEXT,
        ZKE_VERSION_MAX, m->version, sizeof(m->version)));
    CODEC_TRY(codec_get_container(&d, &o, "tags", CODEC_OPTIONAL, cJSON_Array,
        ZKE_TAGS_MAX, &tags));
    i = 0;
    cJSON_ArrayForEach(t, tags) {
        snprintf(field, sizeof(field), "tags[%d]", i);
        CODEC_TRY(codec_str(&d, field, t, 0, CODEC_NAME, ZKE_NAME_MAX,
            m->tags[i], sizeof(m->tags[i])));
        m->ntags = ++i;
    }
    if ((j = codec_dup(m->tags[0], sizeof(m->tags[0]), m->ntags)) >= 0) {
        snprintf(field, sizeof(field), "tags[%d]", j);
        CODEC_TRY(codec_fail(&d, ZKELECT_EBADVALUE, field, "duplicate tag"));
    }
    CODEC_TRY(codec_get_bool(&d, &o, "eligible", CODEC_REQUIRED, &m->eligible));
    CODEC_TRY(codec_get_bool(&d, &o, "healthy", CODEC_REQUIRED, &m->healthy));
    CODEC_TRY(codec_get_str(&d, &o, "guid", CODEC_OPTIONAL, CODEC_GUID,
        ZKE_GUID_LEN, m->guid, sizeof(m->guid)));
    /* absent: a release before slots, which serves one leader */
    CODEC_TRY(codec_get_int(&d, &o, "max_leaders", CODEC_OPTIONAL,
        &codec_int_leaders, &v));
    m->max_leaders = v == 0 ? 1 : (uint32_t)v;
    /* absent: a release before the wake */
    CODEC_TRY(codec_get_bool(&d, &o, "wake", CODEC_OPTIONAL, &m->wake));
    /* absent: a release before the fast handover */
    CODEC_TRY(codec_get_bool(&d, &o, "fast_handover", CODEC_OPTIONAL, &m->fast_handover));
out:
    return codec_end(root, rc, m, sizeof(*m));
}

/* ======================================================================== */
/* elected                                                                  */
/* ======================================================================== */

static const char *const codec_elected_fields[] = {
    "v", "epoch", "leader", "leader_site", "leader_znode", "previous", "elector",
    "policy", "reason", "at_ms", "switchover_id", "config_version", "excluded",
    "hold", "slots", "leader_host", "previous_host", "wake", "fast_handover", NULL
};

static const char *const codec_hold_fields[] = {
    "kind", "node", "until_ms", NULL
};

static const char *const codec_exclusion_fields[] = {
    "id", "reason", "remaining_ms", NULL
};

static const char *const codec_slot_fields[] = {
    "slot", "leader", "leader_site", "leader_znode", "epoch", "since_ms", NULL
};

/*
 * The slot that node id holds among the top-level leader (slot 0) and
 * slots[0..n-1] (slot k+1), or -1. "" holds nothing.
 */
static int
codec_slot_holder(const struct zke_elected *e, int n, const char *id)
{
    int k;

    if (id[0] == '\0')
        return -1;
    if (strcmp(e->leader, id) == 0)
        return 0;
    for (k = 0; k < n; k++)
        if (strcmp(e->slots[k].leader, id) == 0)
            return k + 1;
    return -1;
}

/* Write elected "slots" (only when there are any: N = 1 writes no key). */
static void
codec_put_slots(struct codec_enc *enc, cJSON *root, const struct zke_elected *e)
{
    const struct zke_slot *x;
    cJSON *list, *it;
    int i;

    if (enc->rc == 0 && (e->nslots < 0 || e->nslots > ZKE_LEADERS_MAX - 1))
        codec_enc_error(enc, ZKELECT_EINVAL);
    if (enc->rc != 0 || e->nslots == 0)
        return;
    list = codec_put_container(enc, root, "slots", cJSON_Array);
    for (i = 0; i < e->nslots && list != NULL && enc->rc == 0; i++) {
        x = &e->slots[i];
        if (x->slot != i + 1 || !codec_enc_check(enc, CODEC_ID0, ZKE_ID_MAX,
            x->leader, sizeof(x->leader)) ||
            codec_slot_holder(e, i, x->leader) >= 0) {
            codec_enc_error(enc, ZKELECT_EINVAL);
            break;
        }
        if ((it = codec_push_obj(enc, list)) == NULL)
            break;
        codec_put_int(enc, it, "slot", &codec_int_slotnum, x->slot);
        codec_put_str(enc, it, "leader", CODEC_NULLABLE, CODEC_ID, ZKE_ID_MAX,
            x->leader, sizeof(x->leader));
        codec_put_str(enc, it, "leader_site", 0, CODEC_SITE, ZKE_SITE_MAX,
            x->leader_site, sizeof(x->leader_site));
        codec_put_str(enc, it, "leader_znode", 0, CODEC_ZNODE, ZKE_ZNODE_MAX,
            x->leader_znode, sizeof(x->leader_znode));
        codec_put_u64(enc, it, "epoch", x->leader[0] != '\0' ?
            &codec_int_epoch : &codec_int_count, x->epoch);
        codec_put_int(enc, it, "since_ms", &codec_int_count, x->since_ms);
    }
}

/* Read elected "slots" (after the top-level leader). */
static int
codec_get_slots(struct codec_dec *d, const struct codec_obj *o,
    struct zke_elected *e)
{
    char prefix[32], field[CODEC_FIELD_SIZE];
    const cJSON *list, *it;
    struct zke_slot *x;
    struct codec_obj xo;
    int64_t v;
    int rc, i, k;

    if ((rc = codec_get_container(d, o, "slots", CODEC_OPTIONAL, cJSON_Array,
        ZKE_LEADERS_MAX - 1, &list)) != 0)
        return rc;
    i = 0;
    cJSON_ArrayForEach(it, list) {
        x = &e->slots[i];
        if ((rc = codec_element(d, &xo, it, "slots", i, prefix, sizeof(prefix),
            codec_slot_fields)) != 0)
            return rc;
        if ((rc = codec_get_int(d, &xo, "slot", CODEC_REQUIRED,
            &codec_int_slotnum, &v)) != 0)
            return rc;
        snprintf(field, sizeof(field), "%sslot", prefix);
        if (v != i + 1)
            return codec_fail(d, ZKELECT_EBADVALUE, field,
                "slot %" PRId64 " where slot %d was expected (slots 1 to N-1, "
                "each once, in order)", v, i + 1);
        x->slot = (int)v;
        if ((rc = codec_get_str(d, &xo, "leader", CODEC_REQUIRED |
            CODEC_NULLABLE, CODEC_ID, ZKE_ID_MAX, x->leader,
            sizeof(x->leader))) != 0)
            return rc;
        if ((k = codec_slot_holder(e, i, x->leader)) >= 0) {
            snprintf(field, sizeof(field), "%sleader", prefix);
            return codec_fail(d, ZKELECT_EBADVALUE, field,
                "node \"%s\" already holds slot %d (a node holds at most one "
                "slot)", x->leader, k);
        }
        if ((rc = codec_get_str(d, &xo, "leader_site", CODEC_OPTIONAL,
            CODEC_SITE, ZKE_SITE_MAX, x->leader_site,
            sizeof(x->leader_site))) != 0)
            return rc;
        if ((rc = codec_get_str(d, &xo, "leader_znode", CODEC_OPTIONAL,
            CODEC_ZNODE, ZKE_ZNODE_MAX, x->leader_znode,
            sizeof(x->leader_znode))) != 0)
            return rc;
        /* an empty slot may have no epoch yet; a held one has its token */
        if ((rc = codec_get_int(d, &xo, "epoch", CODEC_REQUIRED,
            x->leader[0] != '\0' ? &codec_int_epoch : &codec_int_count,
            &v)) != 0)
            return rc;
        x->epoch = (uint64_t)v;
        if ((rc = codec_get_int(d, &xo, "since_ms", CODEC_OPTIONAL,
            &codec_int_count, &v)) != 0)
            return rc;
        x->since_ms = v;
        e->nslots = ++i;
    }
    return 0;
}

int
zke_elected_encode(const struct zke_elected *e, char **out, size_t *outlen)
{
    const struct zke_exclusion *x;
    struct codec_enc enc;
    cJSON *root, *list, *it;
    int i;

    root = codec_enc_begin(&enc, e, out, outlen);
    if (enc.rc == 0 && (e->nexcluded < 0 || e->nexcluded > ZKE_EXCLUDED_MAX))
        enc.rc = ZKELECT_EINVAL;
    if (enc.rc != 0)
        return codec_enc_end(&enc, root, out, outlen);
    codec_put_u64(&enc, root, "epoch", &codec_int_epoch, e->epoch);
    codec_put_str(&enc, root, "leader", CODEC_NULLABLE, CODEC_ID, ZKE_ID_MAX,
        e->leader, sizeof(e->leader));
    codec_put_str(&enc, root, "leader_site", 0, CODEC_SITE, ZKE_SITE_MAX,
        e->leader_site, sizeof(e->leader_site));
    codec_put_str(&enc, root, "leader_znode", 0, CODEC_ZNODE, ZKE_ZNODE_MAX,
        e->leader_znode, sizeof(e->leader_znode));
    codec_put_str(&enc, root, "previous", CODEC_NULLABLE, CODEC_ID0, ZKE_ID_MAX,
        e->previous, sizeof(e->previous));
    /* the hosts (a fencing target when that node is gone): only when known */
    if (e->leader_host[0] != '\0')
        codec_put_str(&enc, root, "leader_host", 0, CODEC_TEXT, ZKE_HOST_MAX,
            e->leader_host, sizeof(e->leader_host));
    if (e->previous_host[0] != '\0')
        codec_put_str(&enc, root, "previous_host", 0, CODEC_TEXT, ZKE_HOST_MAX,
            e->previous_host, sizeof(e->previous_host));
    if (e->wake)
        codec_put_bool(&enc, root, "wake", true);
    if (e->fast_handover)
        codec_put_bool(&enc, root, "fast_handover", true);
    codec_put_str(&enc, root, "elector", 0, CODEC_ID, ZKE_ID_MAX, e->elector,
        sizeof(e->elector));
    codec_put_str(&enc, root, "policy", 0, CODEC_NAME, ZKE_NAME_MAX, e->policy,
        sizeof(e->policy));
    codec_put_str(&enc, root, "reason", 0, CODEC_TEXT, ZKE_REASON_MAX,
        e->reason, sizeof(e->reason));
    codec_put_int(&enc, root, "at_ms", &codec_int_count, e->at_ms);
    codec_put_u64(&enc, root, "switchover_id", &codec_int_count,
        e->switchover_id);
    codec_put_int(&enc, root, "config_version", &codec_int_cversion,
        e->config_version);
    list = codec_put_container(&enc, root, "excluded", cJSON_Array);
    for (i = 0; i < e->nexcluded; i++) {
        x = &e->excluded[i];
        it = codec_push_obj(&enc, list);
        codec_put_str(&enc, it, "id", 0, CODEC_ID, ZKE_ID_MAX, x->id,
            sizeof(x->id));
        codec_put_str(&enc, it, "reason", 0, CODEC_NAME, ZKE_NAME_MAX,
            x->reason, sizeof(x->reason));
        codec_put_u64(&enc, it, "remaining_ms", &codec_int_remaining,
            x->remaining_ms);
    }
    if (enc.rc == 0 && codec_dup(e->excluded[0].id, sizeof(e->excluded[0]),
        e->nexcluded) >= 0)
        enc.rc = ZKELECT_EINVAL;
    if (e->hold.kind[0] != '\0') {
        it = codec_put_container(&enc, root, "hold", cJSON_Object);
        if (it != NULL) {
            codec_put_str(&enc, it, "kind", 0, CODEC_NAME, ZKE_NAME_MAX,
                e->hold.kind, sizeof(e->hold.kind));
            codec_put_str(&enc, it, "node", 0, CODEC_ID0, ZKE_ID_MAX,
                e->hold.node, sizeof(e->hold.node));
            codec_put_int(&enc, it, "until_ms", &codec_int_count,
                e->hold.until_ms);
        }
    }
    codec_put_slots(&enc, root, e);
    return codec_enc_end(&enc, root, out, outlen);
}

int
zke_elected_decode(const char *buf, int len, struct zke_elected *e, char *err,
    size_t errlen)
{
    struct codec_dec d = { "elected", err, errlen };
    char prefix[32], field[CODEC_FIELD_SIZE];
    struct zke_exclusion *x;
    struct codec_obj o, xo;
    const cJSON *list, *it;
    cJSON *root = NULL;
    int64_t v;
    int rc, i, j;

    if (e == NULL)
        return codec_fail(&d, ZKELECT_EINVAL, NULL, "invalid arguments");
    memset(e, 0, sizeof(*e));
    CODEC_TRY(codec_begin(&d, buf, len, &root, &o, codec_elected_fields));
    CODEC_TRY(codec_get_int(&d, &o, "epoch", CODEC_REQUIRED, &codec_int_epoch, &v));
    e->epoch = (uint64_t)v;
    CODEC_TRY(codec_get_str(&d, &o, "leader", CODEC_REQUIRED | CODEC_NULLABLE,
        CODEC_ID, ZKE_ID_MAX, e->leader, sizeof(e->leader)));
    CODEC_TRY(codec_get_str(&d, &o, "leader_site", CODEC_OPTIONAL, CODEC_SITE,
        ZKE_SITE_MAX, e->leader_site, sizeof(e->leader_site)));
    CODEC_TRY(codec_get_str(&d, &o, "leader_znode", CODEC_OPTIONAL, CODEC_ZNODE,
        ZKE_ZNODE_MAX, e->leader_znode, sizeof(e->leader_znode)));
    CODEC_TRY(codec_get_str(&d, &o, "previous", CODEC_NULLABLE, CODEC_ID0,
        ZKE_ID_MAX, e->previous, sizeof(e->previous)));
    CODEC_TRY(codec_get_str(&d, &o, "leader_host", CODEC_OPTIONAL, CODEC_TEXT,
        ZKE_HOST_MAX, e->leader_host, sizeof(e->leader_host)));
    CODEC_TRY(codec_get_str(&d, &o, "previous_host", CODEC_OPTIONAL, CODEC_TEXT,
        ZKE_HOST_MAX, e->previous_host, sizeof(e->previous_host)));
    CODEC_TRY(codec_get_bool(&d, &o, "wake", CODEC_OPTIONAL, &e->wake));
    CODEC_TRY(codec_get_bool(&d, &o, "fast_handover", CODEC_OPTIONAL, &e->fast_handover));
    CODEC_TRY(codec_get_str(&d, &o, "elector", CODEC_REQUIRED, CODEC_ID,
        ZKE_ID_MAX, e->elector, sizeof(e->elector)));
    CODEC_TRY(codec_get_str(&d, &o, "policy", CODEC_REQUIRED, CODEC_NAME,
        ZKE_NAME_MAX, e->policy, sizeof(e->policy)));
    CODEC_TRY(codec_get_str(&d, &o, "reason", CODEC_REQUIRED, CODEC_TEXT,
        ZKE_REASON_MAX, e->reason, sizeof(e->reason)));
    CODEC_TRY(codec_get_int(&d, &o, "at_ms", CODEC_OPTIONAL, &codec_int_count, &v));
    e->at_ms = v;
    CODEC_TRY(codec_get_int(&d, &o, "switchover_id", CODEC_OPTIONAL,
        &codec_int_count, &v));
    e->switchover_id = (uint64_t)v;
    CODEC_TRY(codec_get_int(&d, &o, "config_version", CODEC_OPTIONAL,
        &codec_int_cversion, &v));
    e->config_version = (int32_t)v;
    CODEC_TRY(codec_get_container(&d, &o, "excluded", CODEC_REQUIRED,
        cJSON_Array, ZKE_EXCLUDED_MAX, &list));
    i = 0;
    cJSON_ArrayForEach(it, list) {
        x = &e->excluded[i];
        CODEC_TRY(codec_element(&d, &xo, it, "excluded", i, prefix,
            sizeof(prefix), codec_exclusion_fields));
        CODEC_TRY(codec_get_str(&d, &xo, "id", CODEC_REQUIRED, CODEC_ID,
            ZKE_ID_MAX, x->id, sizeof(x->id)));
        CODEC_TRY(codec_get_str(&d, &xo, "reason", CODEC_REQUIRED, CODEC_NAME,
            ZKE_NAME_MAX, x->reason, sizeof(x->reason)));
        CODEC_TRY(codec_get_int(&d, &xo, "remaining_ms", CODEC_REQUIRED,
            &codec_int_remaining, &v));
        x->remaining_ms = (uint64_t)v;
        e->nexcluded = ++i;
    }
    if ((j = codec_dup(e->excluded[0].id, sizeof(e->excluded[0]),
        e->nexcluded)) >= 0) {
        snprintf(field, sizeof(field), "excluded[%d].id", j);
        CODEC_TRY(codec_fail(&d, ZKELECT_EBADVALUE, field,
            "node excluded twice"));
    }
    CODEC_TRY(codec_get_container(&d, &o, "hold", CODEC_OPTIONAL,
        cJSON_Object, CODEC_FIELDS_MAX, &it));
    if (it != NULL) {
        CODEC_TRY(codec_obj_init(&d, &xo, it, codec_hold_fields, "hold."));
        CODEC_TRY(codec_get_str(&d, &xo, "kind", CODEC_REQUIRED, CODEC_NAME,
            ZKE_NAME_MAX, e->hold.kind, sizeof(e->hold.kind)));
        CODEC_TRY(codec_get_str(&d, &xo, "node", CODEC_OPTIONAL, CODEC_ID0,
            ZKE_ID_MAX, e->hold.node, sizeof(e->hold.node)));
        CODEC_TRY(codec_get_int(&d, &xo, "until_ms", CODEC_OPTIONAL,
            &codec_int_count, &v));
        e->hold.until_ms = v;
    }
    CODEC_TRY(codec_get_slots(&d, &o, e));
out:
    return codec_end(root, rc, e, sizeof(*e));
}

/* ======================================================================== */
/* leader                                                                   */
/* ======================================================================== */

static const char *const codec_leader_fields[] = {
    "v", "id", "status", "epoch", "since_ms", "slot", "member", "previous", NULL
};

static const char *const codec_leader_member_fields[] = {
    "site", "host", "priority", NULL
};

int
zke_leader_encode(const struct zke_leader *l, char **out, size_t *outlen)
{
    struct codec_enc e;
    cJSON *root;

    root = codec_enc_begin(&e, l, out, outlen);
    if (e.rc != 0)
        return codec_enc_end(&e, root, out, outlen);
    codec_put_str(&e, root, "id", 0, CODEC_ID, ZKE_ID_MAX, l->id, sizeof(l->id));
    if (l->status != ZKELECT_STATUS_PROGRESS && l->status != ZKELECT_STATUS_READY)
        codec_enc_error(&e, ZKELECT_EINVAL);
    else
        codec_enc_alloc(&e, cJSON_AddStringToObject(root, "status",
            zke_status_text((int)l->status)));
    codec_put_u64(&e, root, "epoch", &codec_int_epoch, l->epoch);
    codec_put_int(&e, root, "since_ms", &codec_int_count, l->since_ms);
    if (l->slot != 0)   /* slot 0 writes what releases before slots wrote */
        codec_put_int(&e, root, "slot", &codec_int_slot, l->slot);
    if (l->previous[0] != '\0')
        codec_put_str(&e, root, "previous", 0, CODEC_ID, ZKE_ID_MAX, l->previous,
            sizeof(l->previous));
    if (l->has_member) {
        cJSON *m = codec_put_container(&e, root, "member", cJSON_Object);
        if (m != NULL) {
            codec_put_str(&e, m, "site", 0, CODEC_SITE, ZKE_SITE_MAX, l->site,
                sizeof(l->site));
            codec_put_str(&e, m, "host", 0, CODEC_TEXT, ZKE_HOST_MAX, l->host,
                sizeof(l->host));
            codec_put_int(&e, m, "priority", &codec_int_priority, l->priority);
        }
    }
    return codec_enc_end(&e, root, out, outlen);
}

int
zke_leader_decode(const char *buf, int len, struct zke_leader *l, char *err,
    size_t errlen)
{
    struct codec_dec d = { "leader", err, errlen };
    char field[CODEC_FIELD_SIZE], esc[CODEC_ESC_SIZE];
    const cJSON *it;
    struct codec_obj o;
    cJSON *root = NULL;
    int64_t v;
    int rc;

    if (l == NULL)
        return codec_fail(&d, ZKELECT_EINVAL, NULL, "invalid arguments");
    memset(l, 0, sizeof(*l));
    CODEC_TRY(codec_begin(&d, buf, len, &root, &o, codec_leader_fields));
    CODEC_TRY(codec_get_str(&d, &o, "id", CODEC_REQUIRED, CODEC_ID, ZKE_ID_MAX,
        l->id, sizeof(l->id)));
    CODEC_TRY(codec_lookup(&d, &o, "status", CODEC_REQUIRED, field,
        sizeof(field), &it));
    if (!cJSON_IsString(it) || it->valuestring == NULL)
        CODEC_TRY(codec_fail(&d, ZKELECT_ETYPE, field,
            "expected a string, got %s", codec_type_name(it)));
    if (strcmp(it->valuestring, "PROGRESS") == 0) {
        l->status = ZKELECT_STATUS_PROGRESS;
    } else if (strcmp(it->valuestring, "READY") == 0) {
        l->status = ZKELECT_STATUS_READY;
    } else {
        codec_escape(esc, sizeof(esc), it->valuestring, strlen(it->valuestring));
        CODEC_TRY(codec_fail(&d, ZKELECT_EBADVALUE, field,
            "unknown status \"%s\" (expected \"PROGRESS\" or \"READY\")", esc));
    }
    CODEC_TRY(codec_get_int(&d, &o, "epoch", CODEC_REQUIRED, &codec_int_epoch, &v));
    l->epoch = (uint64_t)v;
    CODEC_TRY(codec_get_int(&d, &o, "since_ms", CODEC_OPTIONAL, &codec_int_count,
        &v));
    l->since_ms = v;
    CODEC_TRY(codec_get_int(&d, &o, "slot", CODEC_OPTIONAL, &codec_int_slot, &v));
    l->slot = (int)v;
    CODEC_TRY(codec_get_str(&d, &o, "previous", CODEC_OPTIONAL, CODEC_ID0, ZKE_ID_MAX,
        l->previous, sizeof(l->previous)));
    CODEC_TRY(codec_get_container(&d, &o, "member", CODEC_OPTIONAL, cJSON_Object,
        CODEC_FIELDS_MAX, &it));
    if (it != NULL) {
        struct codec_obj mo;
        CODEC_TRY(codec_obj_init(&d, &mo, it, codec_leader_member_fields, "member."));
        CODEC_TRY(codec_get_str(&d, &mo, "site", CODEC_OPTIONAL, CODEC_SITE,
            ZKE_SITE_MAX, l->site, sizeof(l->site)));
        CODEC_TRY(codec_get_str(&d, &mo, "host", CODEC_OPTIONAL, CODEC_TEXT,
            ZKE_HOST_MAX, l->host, sizeof(l->host)));
        CODEC_TRY(codec_get_int(&d, &mo, "priority", CODEC_OPTIONAL,
            &codec_int_priority, &v));
        l->priority = (int)v;
        l->has_member = true;
    }
out:
    return codec_end(root, rc, l, sizeof(*l));
}

/* ======================================================================== */
/* config                                                                   */
/* ======================================================================== */

static const char *const codec_config_fields[] = {
    "v", "policy", "sites", "watchdog_ms", "exclude_ms", "options", "paused",
    "settle_ms", "expect", "failback_delay_ms", "min_move_interval_ms", "drains",
    "leaders", NULL
};

static const char *const codec_drain_fields[] = {
    "until_ms", "reason", "by", NULL
};

int
zke_config_encode(const struct zke_config *c, char **out, size_t *outlen)
{
    struct codec_enc e;
    cJSON *root, *map;
    int i;

    root = codec_enc_begin(&e, c, out, outlen);
    if (e.rc == 0 && (c->nsites < 0 || c->nsites > ZKE_SITES_MAX ||
        c->noptions < 0 || c->noptions > ZKE_OPTIONS_MAX))
        e.rc = ZKELECT_EINVAL;
    if (e.rc != 0)
        return codec_enc_end(&e, root, out, outlen);
    codec_put_str(&e, root, "policy", 0, CODEC_NAME0, ZKE_NAME_MAX, c->policy,
        sizeof(c->policy));
    map = codec_put_container(&e, root, "sites", cJSON_Object);
    for (i = 0; i < c->nsites; i++)
        if (codec_enc_check(&e, CODEC_SITEKEY, ZKE_SITE_MAX, c->sites[i].site,
            sizeof(c->sites[i].site)))
            codec_put_int(&e, map, c->sites[i].site, &codec_int_priority,
                c->sites[i].priority);
    if (e.rc == 0 && codec_dup(c->sites[0].site, sizeof(c->sites[0]),
        c->nsites) >= 0)
        e.rc = ZKELECT_EINVAL;
    codec_put_u64(&e, root, "watchdog_ms", &codec_int_watchdog, c->watchdog_ms);
    codec_put_u64(&e, root, "exclude_ms", &codec_int_exclude, c->exclude_ms);
    map = codec_put_container(&e, root, "options", cJSON_Object);
    for (i = 0; i < c->noptions; i++)
        if (codec_enc_check(&e, CODEC_NAME, ZKE_NAME_MAX, c->options[i].key,
            sizeof(c->options[i].key)))
            codec_put_str(&e, map, c->options[i].key, 0, CODEC_TEXT,
                ZKE_VALUE_MAX, c->options[i].value,
                sizeof(c->options[i].value));
    if (e.rc == 0 && codec_dup(c->options[0].key, sizeof(c->options[0]),
        c->noptions) >= 0)
        e.rc = ZKELECT_EINVAL;
    codec_put_bool(&e, root, "paused", c->paused);
    if (c->settle_set)
        codec_put_u64(&e, root, "settle_ms", &codec_int_settle, c->settle_ms);
    if (c->expect)
        codec_put_u64(&e, root, "expect", &codec_int_expect, c->expect);
    if (c->failback_set)
        codec_put_u64(&e, root, "failback_delay_ms", &codec_int_delay,
            c->failback_delay_ms);
    if (c->min_move_set)
        codec_put_u64(&e, root, "min_move_interval_ms", &codec_int_delay,
            c->min_move_interval_ms);
    if (e.rc == 0 && (c->ndrains < 0 || c->ndrains > ZKE_DRAINS_MAX))
        e.rc = ZKELECT_EINVAL;
    if (e.rc == 0 && c->ndrains > 0) {
        map = codec_put_container(&e, root, "drains", cJSON_Object);
        for (i = 0; i < c->ndrains && map != NULL && e.rc == 0; i++) {
            cJSON *it;
            if (!codec_enc_check(&e, CODEC_ID, ZKE_ID_MAX, c->drains[i].id,
                sizeof(c->drains[i].id)))
                break;
            it = codec_put_container(&e, map, c->drains[i].id, cJSON_Object);
            if (it == NULL)
                break;
            codec_put_int(&e, it, "until_ms", &codec_int_wall,
                c->drains[i].until_ms);
            codec_put_str(&e, it, "reason", 0, CODEC_TEXT, ZKE_REASON_MAX,
                c->drains[i].reason, sizeof(c->drains[i].reason));
            codec_put_str(&e, it, "by", 0, CODEC_TEXT, ZKE_NAME_MAX,
                c->drains[i].by, sizeof(c->drains[i].by));
        }
        if (e.rc == 0 && codec_dup(c->drains[0].id, sizeof(c->drains[0]),
            c->ndrains) >= 0)
            e.rc = ZKELECT_EINVAL;
    }
    /* one leader (0 = not filled in) is the default: no key, as before slots */
    if (c->leaders > 1)
        codec_put_u64(&e, root, "leaders", &codec_int_leaders, c->leaders);
    return codec_enc_end(&e, root, out, outlen);
}

int
zke_config_decode(const char *buf, int len, struct zke_config *c, char *err,
    size_t errlen)
{
    struct codec_dec d = { "config", err, errlen };
    char field[CODEC_FIELD_SIZE], esc[CODEC_ESC_SIZE];
    const cJSON *map, *it;
    struct codec_obj o;
    cJSON *root = NULL;
    int64_t v;
    int rc, i, j;

    if (c == NULL)
        return codec_fail(&d, ZKELECT_EINVAL, NULL, "invalid arguments");
    memset(c, 0, sizeof(*c));
    CODEC_TRY(codec_begin(&d, buf, len, &root, &o, codec_config_fields));
    CODEC_TRY(codec_get_str(&d, &o, "policy", CODEC_OPTIONAL, CODEC_NAME0,
        ZKE_NAME_MAX, c->policy, sizeof(c->policy)));

    CODEC_TRY(codec_get_container(&d, &o, "sites", CODEC_OPTIONAL, cJSON_Object,
        ZKE_SITES_MAX, &map));
    i = 0;
    cJSON_ArrayForEach(it, map) {
        codec_escape(esc, sizeof(esc), it->string, strlen(it->string));
        snprintf(field, sizeof(field), "sites.%s", esc);
        CODEC_TRY(codec_text_in(&d, field, it->string, CODEC_SITEKEY,
            ZKE_SITE_MAX, c->sites[i].site, sizeof(c->sites[i].site)));
        CODEC_TRY(codec_int(&d, field, it, &codec_int_priority, &v));
        c->sites[i].priority = (int32_t)v;
        c->nsites = ++i;
    }
    if ((j = codec_dup(c->sites[0].site, sizeof(c->sites[0]), c->nsites)) >= 0) {
        codec_escape(esc, sizeof(esc), c->sites[j].site, strlen(c->sites[j].site));
        snprintf(field, sizeof(field), "sites.%s", esc);
        CODEC_TRY(codec_fail(&d, ZKELECT_EBADVALUE, field, "duplicate site"));
    }

    CODEC_TRY(codec_get_int(&d, &o, "watchdog_ms", CODEC_OPTIONAL,
        &codec_int_watchdog, &v));
    c->watchdog_ms = (uint32_t)v;
    CODEC_TRY(codec_get_int(&d, &o, "exclude_ms", CODEC_OPTIONAL,
        &codec_int_exclude, &v));
    c->exclude_ms = (uint32_t)v;

    CODEC_TRY(codec_get_container(&d, &o, "options", CODEC_OPTIONAL,
        cJSON_Object, ZKE_OPTIONS_MAX, &map));
    i = 0;
    cJSON_ArrayForEach(it, map) {
        codec_escape(esc, sizeof(esc), it->string, strlen(it->string));
        snprintf(field, sizeof(field), "options.%s", esc);
        CODEC_TRY(codec_text_in(&d, field, it->string, CODEC_NAME, ZKE_NAME_MAX,
            c->options[i].key, sizeof(c->options[i].key)));
        CODEC_TRY(codec_str(&d, field, it, 0, CODEC_TEXT, ZKE_VALUE_MAX,
            c->options[i].value, sizeof(c->options[i].value)));
        c->noptions = ++i;
    }
    if ((j = codec_dup(c->options[0].key, sizeof(c->options[0]),
        c->noptions)) >= 0) {
        snprintf(field, sizeof(field), "options.%s", c->options[j].key);
        CODEC_TRY(codec_fail(&d, ZKELECT_EBADVALUE, field, "duplicate option"));
    }

    CODEC_TRY(codec_get_bool(&d, &o, "paused", CODEC_OPTIONAL, &c->paused));

    c->settle_set = codec_obj_get(&o, "settle_ms") != NULL;
    CODEC_TRY(codec_get_int(&d, &o, "settle_ms", CODEC_OPTIONAL,
        &codec_int_settle, &v));
    c->settle_ms = (uint32_t)v;
    CODEC_TRY(codec_get_int(&d, &o, "expect", CODEC_OPTIONAL,
        &codec_int_expect, &v));
    c->expect = (uint32_t)v;
    c->failback_set = codec_obj_get(&o, "failback_delay_ms") != NULL;
    CODEC_TRY(codec_get_int(&d, &o, "failback_delay_ms", CODEC_OPTIONAL,
        &codec_int_delay, &v));
    c->failback_delay_ms = (uint32_t)v;
    c->min_move_set = codec_obj_get(&o, "min_move_interval_ms") != NULL;
    CODEC_TRY(codec_get_int(&d, &o, "min_move_interval_ms", CODEC_OPTIONAL,
        &codec_int_delay, &v));
    c->min_move_interval_ms = (uint32_t)v;

    CODEC_TRY(codec_get_container(&d, &o, "drains", CODEC_OPTIONAL,
        cJSON_Object, ZKE_DRAINS_MAX, &map));
    i = 0;
    cJSON_ArrayForEach(it, map) {
        struct codec_obj xo;
        char prefix[ZKE_ID_MAX * 4 + 16];
        struct zke_drain *dr = &c->drains[i];

        codec_escape(esc, sizeof(esc), it->string, strlen(it->string));
        snprintf(field, sizeof(field), "drains.%s", esc);
        CODEC_TRY(codec_text_in(&d, field, it->string, CODEC_ID, ZKE_ID_MAX,
            dr->id, sizeof(dr->id)));
        if (!cJSON_IsObject(it))
            CODEC_TRY(codec_fail(&d, ZKELECT_ETYPE, field,
                "expected an object, got %s", codec_type_name(it)));
        snprintf(prefix, sizeof(prefix), "drains.%s.", dr->id);
        CODEC_TRY(codec_obj_init(&d, &xo, it, codec_drain_fields, prefix));
        CODEC_TRY(codec_get_int(&d, &xo, "until_ms", CODEC_REQUIRED,
            &codec_int_wall, &v));
        dr->until_ms = v;
        CODEC_TRY(codec_get_str(&d, &xo, "reason", CODEC_OPTIONAL, CODEC_TEXT,
            ZKE_REASON_MAX, dr->reason, sizeof(dr->reason)));
        CODEC_TRY(codec_get_str(&d, &xo, "by", CODEC_OPTIONAL, CODEC_TEXT,
            ZKE_NAME_MAX, dr->by, sizeof(dr->by)));
        c->ndrains = ++i;
    }
    if ((j = codec_dup(c->drains[0].id, sizeof(c->drains[0]), c->ndrains)) >= 0) {
        snprintf(field, sizeof(field), "drains.%s", c->drains[j].id);
        CODEC_TRY(codec_fail(&d, ZKELECT_EBADVALUE, field, "duplicate node"));
    }
    CODEC_TRY(codec_get_int(&d, &o, "leaders", CODEC_OPTIONAL,
        &codec_int_leaders, &v));
    c->leaders = v == 0 ? 1 : (uint32_t)v;
out:
    return codec_end(root, rc, c, sizeof(*c));
}

/* ======================================================================== */
/* switchover                                                               */
/* ======================================================================== */

static const char *const codec_switchover_fields[] = {
    "v", "id", "to", "at_ms", "by", "site", "due_ms", "cancel", "from", NULL
};

int
zke_switchover_encode(const struct zke_switchover *s, char **out, size_t *outlen)
{
    struct codec_enc e;
    cJSON *root;

    root = codec_enc_begin(&e, s, out, outlen);
    if (e.rc != 0)
        return codec_enc_end(&e, root, out, outlen);
    codec_put_u64(&e, root, "id", &codec_int_count, s->id);
    codec_put_str(&e, root, "to", CODEC_NULLABLE, CODEC_ID, ZKE_ID_MAX, s->to,
        sizeof(s->to));
    codec_put_int(&e, root, "at_ms", &codec_int_count, s->at_ms);
    codec_put_str(&e, root, "by", 0, CODEC_TEXT, ZKE_NAME_MAX, s->by,
        sizeof(s->by));
    if (e.rc == 0 && s->site[0] != '\0' && s->to[0] != '\0')
        e.rc = ZKELECT_EINVAL;
    if (s->site[0] != '\0')
        codec_put_str(&e, root, "site", 0, CODEC_SITEKEY, ZKE_SITE_MAX, s->site,
            sizeof(s->site));
    if (s->due_ms != 0)
        codec_put_int(&e, root, "due_ms", &codec_int_count, s->due_ms);
    if (s->cancel)
        codec_put_bool(&e, root, "cancel", true);
    if (s->from[0] != '\0') {   /* "" moves slot 0: no key, as before slots */
        codec_put_str(&e, root, "from", 0, CODEC_ID, ZKE_ID_MAX, s->from,
            sizeof(s->from));
        if (e.rc == 0 && strcmp(s->from, s->to) == 0)
            e.rc = ZKELECT_EINVAL;
    }
    return codec_enc_end(&e, root, out, outlen);
}

int
zke_switchover_decode(const char *buf, int len, struct zke_switchover *s,
    char *err, size_t errlen)
{
    struct codec_dec d = { "switchover", err, errlen };
    struct codec_obj o;
    cJSON *root = NULL;
    int64_t v;
    int rc;

    if (s == NULL)
        return codec_fail(&d, ZKELECT_EINVAL, NULL, "invalid arguments");
    memset(s, 0, sizeof(*s));
    CODEC_TRY(codec_begin(&d, buf, len, &root, &o, codec_switchover_fields));
    /* 0 is "no request" (the znode zkelect init creates with a guard) */
    CODEC_TRY(codec_get_int(&d, &o, "id", CODEC_REQUIRED, &codec_int_count, &v));
    s->id = (uint64_t)v;
    CODEC_TRY(codec_get_str(&d, &o, "to", CODEC_REQUIRED | CODEC_NULLABLE,
        CODEC_ID, ZKE_ID_MAX, s->to, sizeof(s->to)));
    CODEC_TRY(codec_get_int(&d, &o, "at_ms", CODEC_OPTIONAL, &codec_int_count, &v));
    s->at_ms = v;
    CODEC_TRY(codec_get_str(&d, &o, "by", CODEC_OPTIONAL, CODEC_TEXT,
        ZKE_NAME_MAX, s->by, sizeof(s->by)));
    CODEC_TRY(codec_get_str(&d, &o, "site", CODEC_OPTIONAL, CODEC_SITEKEY,
        ZKE_SITE_MAX, s->site, sizeof(s->site)));
    if (s->site[0] != '\0' && s->to[0] != '\0')
        CODEC_TRY(codec_fail(&d, ZKELECT_EBADVALUE, "site",
            "a switchover names a node (\"to\") or a site, not both"));
    CODEC_TRY(codec_get_int(&d, &o, "due_ms", CODEC_OPTIONAL, &codec_int_count, &v));
    s->due_ms = v;
    CODEC_TRY(codec_get_bool(&d, &o, "cancel", CODEC_OPTIONAL, &s->cancel));
    CODEC_TRY(codec_get_str(&d, &o, "from", CODEC_OPTIONAL, CODEC_ID,
        ZKE_ID_MAX, s->from, sizeof(s->from)));
    if (s->from[0] != '\0' && strcmp(s->from, s->to) == 0)
        CODEC_TRY(codec_fail(&d, ZKELECT_EBADVALUE, "from",
            "a switchover moves a slot away from \"from\", not to it "
            "(\"to\" is the same node)"));
out:
    return codec_end(root, rc, s, sizeof(*s));
}

/* ======================================================================== */
/* history                                                                  */
/* ======================================================================== */

static const char *const codec_history_fields[] = { "v", "entries", NULL };

static const char *const codec_entry_fields[] = {
    "epoch", "leader", "elector", "policy", "reason", "at_ms", "slot", NULL
};

int
zke_history_encode(const struct zke_history *h, char **out, size_t *outlen)
{
    const struct zke_history_entry *x;
    struct codec_enc e;
    cJSON *root, *list, *it;
    int i;

    root = codec_enc_begin(&e, h, out, outlen);
    if (e.rc == 0 && (h->n < 0 || h->n > ZKE_HISTORY_MAX))
        e.rc = ZKELECT_EINVAL;
    if (e.rc != 0)
        return codec_enc_end(&e, root, out, outlen);
    list = codec_put_container(&e, root, "entries", cJSON_Array);
    for (i = 0; i < h->n; i++) {
        x = &h->entries[i];
        it = codec_push_obj(&e, list);
        codec_put_u64(&e, it, "epoch", &codec_int_epoch, x->epoch);
        codec_put_str(&e, it, "leader", CODEC_NULLABLE, CODEC_ID, ZKE_ID_MAX,
            x->leader, sizeof(x->leader));
        codec_put_str(&e, it, "elector", 0, CODEC_ID, ZKE_ID_MAX, x->elector,
            sizeof(x->elector));
        codec_put_str(&e, it, "policy", 0, CODEC_NAME, ZKE_NAME_MAX, x->policy,
            sizeof(x->policy));
        codec_put_str(&e, it, "reason", 0, CODEC_TEXT, ZKE_REASON_MAX,
            x->reason, sizeof(x->reason));
        codec_put_int(&e, it, "at_ms", &codec_int_count, x->at_ms);
        if (x->slot != 0)   /* slot 0: no key, as before slots */
            codec_put_int(&e, it, "slot", &codec_int_slot, x->slot);
    }
    return codec_enc_end(&e, root, out, outlen);
}

int
zke_history_decode(const char *buf, int len, struct zke_history *h, char *err,
    size_t errlen)
{
    struct codec_dec d = { "history", err, errlen };
    struct zke_history_entry *x;
    struct codec_obj o, xo;
    const cJSON *list, *it;
    cJSON *root = NULL;
    char prefix[32];
    int64_t v;
    int rc, i;

    if (h == NULL)
        return codec_fail(&d, ZKELECT_EINVAL, NULL, "invalid arguments");
    memset(h, 0, sizeof(*h));
    CODEC_TRY(codec_begin(&d, buf, len, &root, &o, codec_history_fields));
    CODEC_TRY(codec_get_container(&d, &o, "entries", CODEC_REQUIRED, cJSON_Array,
        ZKE_HISTORY_MAX, &list));
    i = 0;
    cJSON_ArrayForEach(it, list) {
        x = &h->entries[i];
        CODEC_TRY(codec_element(&d, &xo, it, "entries", i, prefix,
            sizeof(prefix), codec_entry_fields));
        CODEC_TRY(codec_get_int(&d, &xo, "epoch", CODEC_REQUIRED,
            &codec_int_epoch, &v));
        x->epoch = (uint64_t)v;
        CODEC_TRY(codec_get_str(&d, &xo, "leader", CODEC_REQUIRED | CODEC_NULLABLE,
            CODEC_ID, ZKE_ID_MAX, x->leader, sizeof(x->leader)));
        CODEC_TRY(codec_get_str(&d, &xo, "elector", CODEC_REQUIRED, CODEC_ID,
            ZKE_ID_MAX, x->elector, sizeof(x->elector)));
        CODEC_TRY(codec_get_str(&d, &xo, "policy", CODEC_REQUIRED, CODEC_NAME,
            ZKE_NAME_MAX, x->policy, sizeof(x->policy)));
        CODEC_TRY(codec_get_str(&d, &xo, "reason", CODEC_REQUIRED, CODEC_TEXT,
            ZKE_REASON_MAX, x->reason, sizeof(x->reason)));
        CODEC_TRY(codec_get_int(&d, &xo, "at_ms", CODEC_OPTIONAL,
            &codec_int_count, &v));
        x->at_ms = v;
        CODEC_TRY(codec_get_int(&d, &xo, "slot", CODEC_OPTIONAL,
            &codec_int_slot, &v));
        x->slot = (int)v;
        h->n = ++i;
    }
out:
    return codec_end(root, rc, h, sizeof(*h));
}

void
zke_history_push(struct zke_history *h, const struct zke_history_entry *e)
{
    struct zke_history_entry copy;

    if (h == NULL || e == NULL)
        return;
    copy = *e;  /* e may point into h->entries */
    if (h->n < 0)
        h->n = 0;
    if (h->n >= ZKE_HISTORY_MAX) {
        memmove(&h->entries[0], &h->entries[1],
            (ZKE_HISTORY_MAX - 1) * sizeof(h->entries[0]));
        h->n = ZKE_HISTORY_MAX - 1;
    }
    h->entries[h->n++] = copy;
}

/* ======================================================================== */
/* successor                                                                */
/* ======================================================================== */

static const char *const codec_successor_fields[] = {
    "v", "elected_version", "history_version", "config_version", "next_epoch",
    "elector", "policy", "at_ms", "slots", NULL
};

static const char *const codec_succ_fields[] = {
    "slot", "leader", "leader_znode", "successor", "successor_site",
    "successor_znode", "successor_version", "successor_host", "switchover", NULL
};

/* Index of the first of s->slots[0..n-1] for slot, or -1. */
static int
codec_succ_find(const struct zke_successor *s, int n, int slot)
{
    int i;

    for (i = 0; i < n; i++)
        if (s->slots[i].slot == slot)
            return i;
    return -1;
}

int
zke_successor_encode(const struct zke_successor *s, char **out, size_t *outlen)
{
    const struct zke_succ *x;
    struct codec_enc e;
    cJSON *root, *list, *it;
    int i;

    root = codec_enc_begin(&e, s, out, outlen);
    if (e.rc == 0 && (s->nslots < 0 || s->nslots > ZKE_LEADERS_MAX))
        e.rc = ZKELECT_EINVAL;
    if (e.rc != 0)
        return codec_enc_end(&e, root, out, outlen);
    codec_put_int(&e, root, "elected_version", &codec_int_zkversion,
        s->elected_version);
    if (s->history_version >= 0)
        codec_put_int(&e, root, "history_version", &codec_int_zkversion,
            s->history_version);
    if (s->config_version >= 0)
        codec_put_int(&e, root, "config_version", &codec_int_zkversion,
            s->config_version);
    codec_put_u64(&e, root, "next_epoch", &codec_int_epoch, s->next_epoch);
    codec_put_str(&e, root, "elector", 0, CODEC_ID, ZKE_ID_MAX, s->elector,
        sizeof(s->elector));
    codec_put_str(&e, root, "policy", 0, CODEC_NAME, ZKE_NAME_MAX, s->policy,
        sizeof(s->policy));
    codec_put_int(&e, root, "at_ms", &codec_int_count, s->at_ms);
    list = codec_put_container(&e, root, "slots", cJSON_Array);
    for (i = 0; i < s->nslots && list != NULL && e.rc == 0; i++) {
        x = &s->slots[i];
        if (codec_succ_find(s, i, x->slot) >= 0) {
            codec_enc_error(&e, ZKELECT_EINVAL);
            break;
        }
        if ((it = codec_push_obj(&e, list)) == NULL)
            break;
        if (x->slot != 0)   /* slot 0: no key, like leader and history */
            codec_put_int(&e, it, "slot", &codec_int_slot, x->slot);
        codec_put_str(&e, it, "leader", 0, CODEC_ID, ZKE_ID_MAX, x->leader,
            sizeof(x->leader));
        codec_put_str(&e, it, "leader_znode", 0, CODEC_ZNODE1, ZKE_ZNODE_MAX,
            x->leader_znode, sizeof(x->leader_znode));
        codec_put_str(&e, it, "successor", 0, CODEC_ID, ZKE_ID_MAX,
            x->successor, sizeof(x->successor));
        codec_put_str(&e, it, "successor_site", 0, CODEC_SITE, ZKE_SITE_MAX,
            x->successor_site, sizeof(x->successor_site));
        if (x->successor_host[0] != '\0')
            codec_put_str(&e, it, "successor_host", 0, CODEC_TEXT, ZKE_HOST_MAX,
                x->successor_host, sizeof(x->successor_host));
        codec_put_str(&e, it, "successor_znode", 0, CODEC_ZNODE1,
            ZKE_ZNODE_MAX, x->successor_znode, sizeof(x->successor_znode));
        if (x->successor_version >= 0)
            codec_put_int(&e, it, "successor_version", &codec_int_zkversion,
                x->successor_version);
        if (x->switchover) {
            if (x->slot != 0)
                codec_enc_error(&e, ZKELECT_EINVAL);
            codec_put_bool(&e, it, "switchover", true);
        }
        /* both are NUL-terminated once codec_put_str accepted them */
        if (e.rc == 0 && strcmp(x->leader, x->successor) == 0)
            codec_enc_error(&e, ZKELECT_EINVAL);
    }
    return codec_enc_end(&e, root, out, outlen);
}

int
zke_successor_decode(const char *buf, int len, struct zke_successor *s,
    char *err, size_t errlen)
{
    struct codec_dec d = { "successor", err, errlen };
    char prefix[32], field[CODEC_FIELD_SIZE];
    struct zke_succ *x;
    struct codec_obj o, xo;
    const cJSON *list, *it;
    cJSON *root = NULL;
    int64_t v;
    int rc, i, j;

    if (s == NULL)
        return codec_fail(&d, ZKELECT_EINVAL, NULL, "invalid arguments");
    memset(s, 0, sizeof(*s));
    CODEC_TRY(codec_begin(&d, buf, len, &root, &o, codec_successor_fields));
    CODEC_TRY(codec_get_int(&d, &o, "elected_version", CODEC_REQUIRED,
        &codec_int_zkversion, &v));
    s->elected_version = (int32_t)v;
    /* absent: -1 (0 is a version) */
    s->history_version = -1;
    if (codec_has(&o, "history_version")) {
        CODEC_TRY(codec_get_int(&d, &o, "history_version", CODEC_REQUIRED,
            &codec_int_zkversion, &v));
        s->history_version = (int32_t)v;
    }
    s->config_version = -1;
    if (codec_has(&o, "config_version")) {
        CODEC_TRY(codec_get_int(&d, &o, "config_version", CODEC_REQUIRED,
            &codec_int_zkversion, &v));
        s->config_version = (int32_t)v;
    }
    CODEC_TRY(codec_get_int(&d, &o, "next_epoch", CODEC_REQUIRED,
        &codec_int_epoch, &v));
    s->next_epoch = (uint64_t)v;
    CODEC_TRY(codec_get_str(&d, &o, "elector", CODEC_REQUIRED, CODEC_ID,
        ZKE_ID_MAX, s->elector, sizeof(s->elector)));
    CODEC_TRY(codec_get_str(&d, &o, "policy", CODEC_REQUIRED, CODEC_NAME,
        ZKE_NAME_MAX, s->policy, sizeof(s->policy)));
    CODEC_TRY(codec_get_int(&d, &o, "at_ms", CODEC_OPTIONAL, &codec_int_count,
        &v));
    s->at_ms = v;
    CODEC_TRY(codec_get_container(&d, &o, "slots", CODEC_REQUIRED, cJSON_Array,
        ZKE_LEADERS_MAX, &list));
    i = 0;
    cJSON_ArrayForEach(it, list) {
        x = &s->slots[i];
        CODEC_TRY(codec_element(&d, &xo, it, "slots", i, prefix,
            sizeof(prefix), codec_succ_fields));
        CODEC_TRY(codec_get_int(&d, &xo, "slot", CODEC_OPTIONAL,
            &codec_int_slot, &v));
        x->slot = (int)v;
        if ((j = codec_succ_find(s, i, x->slot)) >= 0) {
            snprintf(field, sizeof(field), "%sslot", prefix);
            CODEC_TRY(codec_fail(&d, ZKELECT_EBADVALUE, field,
                "slot %d given twice (slots[%d] is slot %d too)", x->slot,
                j, x->slot));
        }
        CODEC_TRY(codec_get_str(&d, &xo, "leader", CODEC_REQUIRED, CODEC_ID,
            ZKE_ID_MAX, x->leader, sizeof(x->leader)));
        CODEC_TRY(codec_get_str(&d, &xo, "leader_znode", CODEC_REQUIRED,
            CODEC_ZNODE1, ZKE_ZNODE_MAX, x->leader_znode,
            sizeof(x->leader_znode)));
        CODEC_TRY(codec_get_str(&d, &xo, "successor", CODEC_REQUIRED, CODEC_ID,
            ZKE_ID_MAX, x->successor, sizeof(x->successor)));
        if (strcmp(x->successor, x->leader) == 0) {
            snprintf(field, sizeof(field), "%ssuccessor", prefix);
            CODEC_TRY(codec_fail(&d, ZKELECT_EBADVALUE, field,
                "node \"%s\" is the slot's leader (a leader does not succeed "
                "itself)", x->successor));
        }
        CODEC_TRY(codec_get_str(&d, &xo, "successor_site", CODEC_OPTIONAL,
            CODEC_SITE, ZKE_SITE_MAX, x->successor_site,
            sizeof(x->successor_site)));
        CODEC_TRY(codec_get_str(&d, &xo, "successor_host", CODEC_OPTIONAL,
            CODEC_TEXT, ZKE_HOST_MAX, x->successor_host,
            sizeof(x->successor_host)));
        CODEC_TRY(codec_get_str(&d, &xo, "successor_znode", CODEC_REQUIRED,
            CODEC_ZNODE1, ZKE_ZNODE_MAX, x->successor_znode,
            sizeof(x->successor_znode)));
        x->successor_version = -1;
        if (codec_has(&xo, "successor_version")) {
            CODEC_TRY(codec_get_int(&d, &xo, "successor_version", CODEC_REQUIRED,
                &codec_int_zkversion, &v));
            x->successor_version = (int32_t)v;
        }
        CODEC_TRY(codec_get_bool(&d, &xo, "switchover", CODEC_OPTIONAL, &x->switchover));
        if (x->switchover && x->slot != 0) {
            snprintf(field, sizeof(field), "%sswitchover", prefix);
            CODEC_TRY(codec_fail(&d, ZKELECT_EBADVALUE, field,
                "true for slot %d (a direct switchover moves slot 0 only)", x->slot));
        }
        s->nslots = ++i;
    }
out:
    return codec_end(root, rc, s, sizeof(*s));
}

const struct zke_succ *
zke_successor_slot(const struct zke_successor *s, int slot)
{
    int i;

    if (s == NULL || s->nslots < 0 || s->nslots > ZKE_LEADERS_MAX)
        return NULL;
    i = codec_succ_find(s, s->nslots, slot);
    return i >= 0 ? &s->slots[i] : NULL;
}
