/*
 * test_cli_unit.c - the CLI's own SHA-1, base64 and ZooKeeper digest ids
 * (src/cli/digest.c) against published vectors and against
 *   echo -n 'admin:secret' | openssl dgst -binary -sha1 | base64
 *   = fvr2cB/fjGeAiX8g1aGhUm3ZICk=
 * and the parsers of durations, RFC 3339 times and operator text
 * (src/cli/parse.c): every form accepted, every refusal with its message.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cutest.h"
#include "cli.h"

static void
hex(const unsigned char *md, char *out)
{
    int i;

    for (i = 0; i < 20; i++)
        sprintf(out + 2 * i, "%02x", md[i]);
}

static void
check_sha1(const char *in, size_t len, const char *want)
{
    unsigned char md[20];
    char got[41];

    cli_sha1(in, len, md);
    hex(md, got);
    CU_ASSERT_STRING_EQUAL(got, want);
}

static void
test_sha1_vectors(void)
{
    /* FIPS 180 examples and the classic ones */
    check_sha1("", 0, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    check_sha1("abc", 3, "a9993e364706816aba3e25717850c26c9cd0d89d");
    check_sha1("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
               "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    check_sha1("The quick brown fox jumps over the lazy dog", 43,
               "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12");
}

static void
test_sha1_lengths(void)
{
    /* padding edges: 55, 56, 63, 64, 65 bytes of 'a', and a million 'a' */
    static char buf[1000000];
    memset(buf, 'a', sizeof(buf));
    check_sha1(buf, 55, "c1c8bbdc22796e28c0e15163d20899b65621d65a");
    check_sha1(buf, 56, "c2db330f6083854c99d4b5bfb6e8f29f201be699");
    check_sha1(buf, 63, "03f09f5b158a7a8cdad920bddc29b81c18a551f5");
    check_sha1(buf, 64, "0098ba824b5c16427bd7a1122a5a442a25ec644d");
    check_sha1(buf, 65, "11655326c708d70319be2610e8a57d9a5b959d3b");
    check_sha1(buf, sizeof(buf), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

static void
test_base64(void)
{
    char out[64];

    /* RFC 4648 section 10 */
    cli_base64((const unsigned char *)"", 0, out, sizeof(out));
    CU_ASSERT_STRING_EQUAL(out, "");
    cli_base64((const unsigned char *)"f", 1, out, sizeof(out));
    CU_ASSERT_STRING_EQUAL(out, "Zg==");
    cli_base64((const unsigned char *)"fo", 2, out, sizeof(out));
    CU_ASSERT_STRING_EQUAL(out, "Zm8=");
    cli_base64((const unsigned char *)"foo", 3, out, sizeof(out));
    CU_ASSERT_STRING_EQUAL(out, "Zm9v");
    cli_base64((const unsigned char *)"foob", 4, out, sizeof(out));
    CU_ASSERT_STRING_EQUAL(out, "Zm9vYg==");
    cli_base64((const unsigned char *)"fooba", 5, out, sizeof(out));
    CU_ASSERT_STRING_EQUAL(out, "Zm9vYmE=");
    cli_base64((const unsigned char *)"foobar", 6, out, sizeof(out));
    CU_ASSERT_STRING_EQUAL(out, "Zm9vYmFy");
    cli_base64((const unsigned char *)"\xff\xfe\x00", 3, out, sizeof(out));
    CU_ASSERT_STRING_EQUAL(out, "//4A");
    /* too small an output buffer: empty, never an overflow */
    cli_base64((const unsigned char *)"foobar", 6, out, 8);
    CU_ASSERT_STRING_EQUAL(out, "");
}

static void
test_digest_id(void)
{
    char out[128];

    CU_ASSERT_EQUAL(cli_digest_id("admin:secret", out, sizeof(out)), 0);
    CU_ASSERT_STRING_EQUAL(out, "admin:fvr2cB/fjGeAiX8g1aGhUm3ZICk=");
    /* the user is what precedes the first colon; the password may hold colons */
    CU_ASSERT_EQUAL(cli_digest_id("u:p:q", out, sizeof(out)), 0);
    CU_ASSERT_EQUAL(strncmp(out, "u:", 2), 0);
    CU_ASSERT_EQUAL(strlen(out), 2 + 28);
    CU_ASSERT_EQUAL(cli_digest_id("nocolon", out, sizeof(out)), -1);
    CU_ASSERT_EQUAL(cli_digest_id(":password", out, sizeof(out)), -1);
    CU_ASSERT_EQUAL(cli_digest_id(NULL, out, sizeof(out)), -1);
    CU_ASSERT_EQUAL(cli_digest_id("admin:secret", out, 10), -1);
}

static CU_TestInfo digest_tests[] = {
    { "sha1 vectors", test_sha1_vectors },
    { "sha1 padding lengths", test_sha1_lengths },
    { "base64", test_base64 },
    { "digest id", test_digest_id },
    CU_TEST_INFO_NULL
};

/* ---- parse.c ------------------------------------------------------------- */

#define MIN_S  1000
#define WEEK   (7 * 86400000LL)

static void
dur_ok(const char *s, int64_t want)
{
    char why[200] = "x";
    int64_t got = -1;

    if (cli_parse_duration(s, 0, WEEK, &got, why, sizeof(why)) != 0)
        fprintf(stderr, "\n    \"%s\": %s\n", s, why);
    CU_ASSERT_EQUAL(got, want);
    CU_ASSERT_STRING_EQUAL(why, "");
}

static void
dur_bad(const char *s, int64_t min, int64_t max, const char *msg)
{
    char why[200] = "";
    int64_t got = 12345;

    CU_ASSERT_EQUAL(cli_parse_duration(s, min, max, &got, why, sizeof(why)), -1);
    CU_ASSERT_EQUAL(got, 12345);            /* nothing stored */
    if (strstr(why, msg) == NULL)
        fprintf(stderr, "\n    \"%s\": \"%s\" lacks \"%s\"\n", s, why, msg);
    CU_ASSERT(strstr(why, msg) != NULL);
}

static void
test_duration_forms(void)
{
    dur_ok("500ms", 500);
    dur_ok("90s", 90000);
    dur_ok("15m", 900000);
    dur_ok("2h", 7200000);
    dur_ok("1d", 86400000);
    dur_ok("7d", WEEK);
    dur_ok("1h30m", 5400000);
    dur_ok("1d2h3m4s5ms", 86400000 + 7200000 + 180000 + 4000 + 5);
    dur_ok("0s", 0);
    dur_ok("007s", 7000);
    dur_ok("5000ms", 5000);
}

static void
test_duration_refused(void)
{
    dur_bad("", 0, WEEK, "is empty");
    dur_bad("30", 0, WEEK, "has no unit");
    dur_bad("1h30", 0, WEEK, "has no unit");
    dur_bad("-5s", 0, WEEK, "is negative");
    dur_bad("+5s", 0, WEEK, "is not a duration");
    dur_bad("1.5h", 0, WEEK, "has a fraction");
    dur_bad("5 s", 0, WEEK, "unknown unit");
    dur_bad(" 5s", 0, WEEK, "is not a duration");
    dur_bad("5sec", 0, WEEK, "unknown unit");
    dur_bad("5w", 0, WEEK, "unknown unit");
    dur_bad("5S", 0, WEEK, "unknown unit");
    dur_bad("s", 0, WEEK, "is not a duration");
    dur_bad("1h-5m", 0, WEEK, "is not a duration");
    dur_bad("8d", 0, WEEK, "is too long");
    dur_bad("7d1ms", 0, WEEK, "is too long");
    dur_bad("999999999999999999999d", 0, WEEK, "is too long");
    dur_bad("9999999999999d", 0, WEEK, "is too long");        /* overflows int64 in ms */
    dur_bad("99999999999999s", 0, WEEK, "is too long");
    dur_bad("500ms", MIN_S, WEEK, "is too short");
    dur_bad("0s", MIN_S, WEEK, "expected 1.0 s to 7d 00h");
}

static void
time_ok(const char *s, int64_t want)
{
    char why[200] = "x";
    int64_t got = -1;

    if (cli_parse_time(s, 1000000, &got, why, sizeof(why)) != 0)
        fprintf(stderr, "\n    \"%s\": %s\n", s, why);
    CU_ASSERT_EQUAL(got, want);
    CU_ASSERT_STRING_EQUAL(why, "");
}

static void
time_bad(const char *s, const char *msg)
{
    char why[200] = "";
    int64_t got = 777;

    CU_ASSERT_EQUAL(cli_parse_time(s, 1000000, &got, why, sizeof(why)), -1);
    CU_ASSERT_EQUAL(got, 777);
    if (strstr(why, msg) == NULL)
        fprintf(stderr, "\n    \"%s\": \"%s\" lacks \"%s\"\n", s, why, msg);
    CU_ASSERT(strstr(why, msg) != NULL);
}

static void
test_time_forms(void)
{
    /* date -u -d 2026-11-26T03:00:00Z +%s = 1795662000 */
    time_ok("2026-11-26T03:00:00Z", 1795662000000LL);
    time_ok("2026-11-26t03:00:00z", 1795662000000LL);
    time_ok("2026-11-26 03:00:00Z", 1795662000000LL);
    time_ok("2026-11-26T03:00Z", 1795662000000LL);
    time_ok("2026-11-26T05:00:00+02:00", 1795662000000LL);
    time_ok("2026-11-25T22:30:00-04:30", 1795662000000LL);
    time_ok("2026-11-26T03:00:00.250Z", 1795662000250LL);
    time_ok("2026-11-26T03:00:00.1234567Z", 1795662000123LL);
    time_ok("2026-11-26T03:00:00+00:00", 1795662000000LL);
    time_ok("2028-02-29T00:00:00Z", 1835395200000LL);         /* a leap day */
    time_ok("1970-01-01T00:00:00Z", 0);
    time_ok("+90s", 1000000 + 90000);
    time_ok("+1h30m", 1000000 + 5400000);
    time_ok("+0s", 1000000);          /* the caller refuses a time not in the future */
}

static void
test_time_refused(void)
{
    time_bad("", "is empty");
    time_bad("2026-11-26T03:00:00", "has no time zone");
    time_bad("2026-11-26", "has no time of day");
    time_bad("2026-11-26T3:00:00Z", "bad time of day");
    time_bad("2026-11-26T03:00:0Z", "bad seconds");
    time_bad("2026-11-26T03:00:00.Z", "without digits");
    time_bad("2026-11-26T03:00:00+0200", "bad offset");
    time_bad("2026-11-26T03:00:00+24:00", "offset out of range");
    time_bad("2026-11-26T03:00:00 UTC", "unexpected text after the time");
    time_bad("2026-11-26T03:00:00Zx", "unexpected text after the time zone");
    time_bad("2026-13-01T00:00:00Z", "not a valid date");
    time_bad("2026-02-29T00:00:00Z", "not a valid date");        /* not a leap year */
    time_bad("2026-04-31T00:00:00Z", "not a valid date");
    time_bad("2026-11-26T24:00:00Z", "not a valid date");
    time_bad("2026-11-26T23:60:00Z", "not a valid date");
    time_bad("1969-12-31T23:59:59Z", "not a valid date");
    time_bad("26-11-26T03:00:00Z", "is not a time");
    time_bad("tomorrow", "is not a time");
    time_bad("1795662000", "is not a time");
    time_bad("+", "+DURATION: \"\" is empty");
    time_bad("+30", "has no unit");
    time_bad("+-5s", "is negative");
    time_bad("-5s", "is not a time");
}

static void
text_check(const char *s, size_t max, int want, const char *msg)
{
    char why[200] = "";

    CU_ASSERT_EQUAL(cli_text_ok(s, max, why, sizeof(why)), want);
    if (msg)
        CU_ASSERT(strstr(why, msg) != NULL);
}

static void
test_text(void)
{
    text_check("kernel upgrade", 159, 0, NULL);
    text_check("", 159, 0, NULL);
    text_check("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", 159, 0, NULL);
    text_check("abc", 3, 0, NULL);
    text_check("abcd", 3, -1, "is 4 bytes long (at most 3)");
    text_check("a\tb", 159, -1, "control character");
    text_check("a\nb", 159, -1, "control character");
    text_check("a\x7f", 159, -1, "control character");
    text_check("\xC0\xAF", 159, -1, "not valid UTF-8");         /* overlong */
    text_check("\xE0\x80\xAF", 159, -1, "not valid UTF-8");
    text_check("\xED\xA0\x80", 159, -1, "not valid UTF-8");     /* surrogate */
    text_check("\xF4\x90\x80\x80", 159, -1, "not valid UTF-8"); /* above U+10FFFF */
    text_check("\xE2\x82", 159, -1, "not valid UTF-8");         /* truncated */
    text_check("\x80", 159, -1, "not valid UTF-8");
    text_check("\xFF", 159, -1, "not valid UTF-8");
}

static void
fmt_is(int64_t ms, const char *want)
{
    char got[32];

    cli_fmt_duration(ms, got, sizeof(got));
    CU_ASSERT_STRING_EQUAL(got, want);
}

static void
test_fmt_duration(void)
{
    fmt_is(-5, "0.0 s");
    fmt_is(0, "0.0 s");
    fmt_is(1400, "1.4 s");
    fmt_is(9999, "9.9 s");
    fmt_is(10000, "10 s");
    fmt_is(25000, "25 s");
    fmt_is(24001, "25 s");                  /* rounded up: never less than is left */
    fmt_is(119000, "119 s");
    fmt_is(120000, "2m 00s");
    fmt_is(3599000, "59m 59s");
    fmt_is(3600000, "1h 00m");
    fmt_is(7198000, "1h 59m");
    fmt_is(7200000, "2h 00m");
    fmt_is(2 * 86400000LL - 1000, "47h 59m");
    fmt_is(2 * 86400000LL, "2d 00h");
    fmt_is(86400000, "24h 00m");
    fmt_is(7 * 86400000LL, "7d 00h");
}

static CU_TestInfo parse_tests[] = {
    { "duration forms", test_duration_forms },
    { "duration refused", test_duration_refused },
    { "time forms", test_time_forms },
    { "time refused", test_time_refused },
    { "text", test_text },
    { "fmt_duration", test_fmt_duration },
    CU_TEST_INFO_NULL
};

static CU_SuiteInfo suites[] = {
    { "digest", NULL, NULL, NULL, NULL, digest_tests },
    { "parse", NULL, NULL, NULL, NULL, parse_tests },
    CU_SUITE_INFO_NULL
};

int
main(int argc, char **argv)
{
    return cutest_main(argc, argv, suites);
}
