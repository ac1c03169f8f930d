/*
 * parse.c - the CLI's parsers of durations and wall-clock times, and of
 * operator text, with the messages they give; and durations formatted for
 * people. Pure functions on libc only, so that tests/cli/test_cli_unit
 * checks them without ZooKeeper.
 *
 * DURATION (drain --for, switchover --at +DURATION): one or more
 * <digits><unit>, unit ms, s, m, h or d, e.g. "90s", "15m", "1h30m",
 * "5000ms". A bare number is refused: "--for 30" could mean seconds,
 * minutes or milliseconds, and a drain that ends 30 ms after it starts is
 * a silent mistake. No sign, no fraction ("1.5h": write "90m"), no space.
 *
 * TIME (switchover --at): RFC 3339, "2026-11-26T03:00:00Z" or with an
 * offset "2026-11-26T05:00:00+02:00", seconds and a fraction optional
 * ("2026-11-26T03:00Z" is accepted), 't'/'z' in lower case and a space
 * for the 'T' too (RFC 3339 section 5.6 allows both); or "+DURATION",
 * relative to now. A time without a zone is refused: which zone it meant
 * cannot be guessed.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* ms per unit; the longer names first ("ms" before "m"). */
static const struct {
    const char *name;
    int64_t ms;
} parse_units[] = {
    { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 }, { "d", 86400000 },
};

#define PARSE_DURATION_MAX (INT64_C(1) << 50)   /* beyond any range we accept */

int
cli_parse_duration(const char *s, int64_t min_ms, int64_t max_ms, int64_t *out_ms,
                   char *why, size_t whylen)
{
    const char *p = s;
    int64_t total = 0, n;
    size_t i, len;
    bool unit_ok;

    snprintf(why, whylen, "%s", "");
    if (s == NULL || *s == '\0') {
        snprintf(why, whylen, "is empty (expected a duration such as 90s, 15m, 2h or 1d)");
        return -1;
    }
    if (*s == '-') {
        snprintf(why, whylen, "is negative (expected a duration such as 90s, 15m, 2h or 1d)");
        return -1;
    }
    while (*p) {
        if (*p < '0' || *p > '9') {
            snprintf(why, whylen, "is not a duration (expected <number><unit>, unit ms, s, m, "
                     "h or d, e.g. 90s, 15m, 1h30m)");
            return -1;
        }
        for (n = 0; *p >= '0' && *p <= '9'; p++) {
            n = n * 10 + (*p - '0');
            if (n > PARSE_DURATION_MAX) {
                snprintf(why, whylen, "is too long (at most %lld ms)", (long long)max_ms);
                return -1;
            }
        }
        if (*p == '\0') {
            snprintf(why, whylen, "has no unit (write e.g. %lldms, %llds or %lldm: a bare "
                     "number is refused)", (long long)n, (long long)n, (long long)n);
            return -1;
        }
        unit_ok = false;
        for (i = 0; i < sizeof(parse_units) / sizeof(parse_units[0]); i++) {
            len = strlen(parse_units[i].name);
            if (strncmp(p, parse_units[i].name, len) == 0 &&
                !(p[len] >= 'a' && p[len] <= 'z')) {
                if (n > PARSE_DURATION_MAX / parse_units[i].ms) {
                    snprintf(why, whylen, "is too long (at most %lld ms)", (long long)max_ms);
                    return -1;
                }
                n *= parse_units[i].ms;
                p += len;
                unit_ok = true;
                break;
            }
        }
        if (!unit_ok) {
            if (*p == '.' || *p == ',')
                snprintf(why, whylen, "has a fraction (write whole numbers: 90m, not 1.5h)");
            else
                snprintf(why, whylen, "has an unknown unit (expected ms, s, m, h or d)");
            return -1;
        }
        total += n;
        if (total > PARSE_DURATION_MAX) {
            snprintf(why, whylen, "is too long (at most %lld ms)", (long long)max_ms);
            return -1;
        }
    }
    if (total < min_ms || total > max_ms) {
        char lo[32], hi[32];
        cli_fmt_duration(min_ms, lo, sizeof(lo));
        cli_fmt_duration(max_ms, hi, sizeof(hi));
        snprintf(why, whylen, "is %s (%lld ms): expected %s to %s",
                 total < min_ms ? "too short" : "too long", (long long)total, lo, hi);
        return -1;
    }
    *out_ms = total;
    return 0;
}

/* n digits at *p as an int; advances *p. -1 when they are not all digits. */
static int
digits(const char **p, int n)
{
    int v = 0;

    while (n-- > 0) {
        if (**p < '0' || **p > '9')
            return -1;
        v = v * 10 + (*(*p)++ - '0');
    }
    return v;
}

static bool
leap(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int
cli_parse_time(const char *s, int64_t now_ms, int64_t *out_ms, char *why, size_t whylen)
{
    static const int mdays[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    const char *p = s;
    int y, mo, d, h, mi, sec = 0, oh = 0, om = 0, sign = 0, frac_ms = 0, scale = 100;
    struct tm tm;
    time_t t;
    int64_t dur;
    char dwhy[160];

    snprintf(why, whylen, "%s", "");
    if (s == NULL || *s == '\0') {
        snprintf(why, whylen, "is empty (expected an RFC 3339 time such as "
                 "2026-11-26T03:00:00Z, or +DURATION such as +15m)");
        return -1;
    }
    if (*s == '+') {
        if (cli_parse_duration(s + 1, 0, PARSE_DURATION_MAX - 1, &dur, dwhy, sizeof(dwhy)) != 0) {
            snprintf(why, whylen, "+DURATION: \"%s\" %s", s + 1, dwhy);
            return -1;
        }
        *out_ms = now_ms + dur;
        return 0;
    }
#define BAD(...) do { snprintf(why, whylen, __VA_ARGS__); return -1; } while (0)
    if ((y = digits(&p, 4)) < 0 || *p++ != '-' || (mo = digits(&p, 2)) < 0 || *p++ != '-' ||
        (d = digits(&p, 2)) < 0)
        BAD("is not a time (expected RFC 3339 YYYY-MM-DDTHH:MM:SSZ or with an offset "
            "+HH:MM, e.g. 2026-11-26T03:00:00Z; or +DURATION such as +15m)");
    if (*p != 'T' && *p != 't' && *p != ' ')
        BAD("has no time of day (expected e.g. 2026-11-26T03:00:00Z)");
    p++;
    if ((h = digits(&p, 2)) < 0 || *p++ != ':' || (mi = digits(&p, 2)) < 0)
        BAD("has a bad time of day (expected HH:MM or HH:MM:SS, e.g. 03:00:00)");
    if (*p == ':') {
        p++;
        if ((sec = digits(&p, 2)) < 0)
            BAD("has bad seconds (expected two digits)");
        if (*p == '.') {
            p++;
            if (*p < '0' || *p > '9')
                BAD("has a '.' without digits after the seconds");
            for (; *p >= '0' && *p <= '9'; p++) {
                frac_ms += (*p - '0') * scale;
                scale /= 10;
            }
        }
    }
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        sign = *p++ == '+' ? 1 : -1;
        if ((oh = digits(&p, 2)) < 0 || *p++ != ':' || (om = digits(&p, 2)) < 0)
            BAD("has a bad offset (expected Z, +HH:MM or -HH:MM)");
        if (oh > 23 || om > 59)
            BAD("has an offset out of range (%c%02d:%02d)", sign > 0 ? '+' : '-', oh, om);
    } else if (*p == '\0') {
        BAD("has no time zone (add Z for UTC or an offset such as +02:00)");
    } else {
        BAD("has unexpected text after the time (expected Z or an offset such as +02:00)");
    }
    if (*p != '\0')
        BAD("has unexpected text after the time zone");
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 ||
        d > mdays[mo - 1] + (mo == 2 && leap(y)) || h > 23 || mi > 59 || sec > 60)
        BAD("is not a valid date and time");
#undef BAD
    memset(&tm, 0, sizeof(tm));
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;     /* a leap second 60 counts as the next minute's 0 */
    t = timegm(&tm);
    *out_ms = (int64_t)t * 1000 + frac_ms - (int64_t)sign * (oh * 3600 + om * 60) * 1000;
    return 0;
}

int
cli_text_ok(const char *s, size_t max, char *why, size_t whylen)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    unsigned cp;
    int k, i;

    if (n > max) {
        snprintf(why, whylen, "is %zu bytes long (at most %zu)", n, max);
        return -1;
    }
    while (*p) {
        if (*p < 0x20 || *p == 0x7f) {
            snprintf(why, whylen, "has a control character (a tab or newline, say): it must "
                     "stay on one line");
            return -1;
        }
        if (*p < 0x80) {
            p++;
            continue;
        }
        if (*p >= 0xc2 && *p <= 0xdf) {
            k = 1;
            cp = *p & 0x1f;
        } else if (*p >= 0xe0 && *p <= 0xef) {
            k = 2;
            cp = *p & 0x0f;
        } else if (*p >= 0xf0 && *p <= 0xf4) {
            k = 3;
            cp = *p & 0x07;
        } else {
            goto bad;
        }
        for (i = 1; i <= k; i++) {
            if ((p[i] & 0xc0) != 0x80)
                goto bad;
            cp = (cp << 6) | (p[i] & 0x3f);
        }
        if ((k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            goto bad;
        p += k + 1;
    }
    return 0;
bad:
    snprintf(why, whylen, "is not valid UTF-8");
    return -1;
}

void
cli_fmt_duration(int64_t ms, char *out, size_t outlen)
{
    int64_t s;

    if (ms < 0)
        ms = 0;
    if (ms < 10000) {
        /* "1.4 s": short waits are watched closely */
        snprintf(out, outlen, "%lld.%lld s", (long long)(ms / 1000), (long long)(ms % 1000 / 100));
        return;
    }
    s = (ms + 999) / 1000;   /* never show less time than is left */
    if (s < 120)
        snprintf(out, outlen, "%lld s", (long long)s);
    else if (s < 3600)
        snprintf(out, outlen, "%lldm %02llds", (long long)(s / 60), (long long)(s % 60));
    else if (s < 2 * 86400)
        snprintf(out, outlen, "%lldh %02lldm", (long long)(s / 3600), (long long)(s % 3600 / 60));
    else
        snprintf(out, outlen, "%lldd %02lldh", (long long)(s / 86400),
                 (long long)(s % 86400 / 3600));
}
