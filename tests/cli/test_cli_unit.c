/*
 * test_cli_unit.c - the CLI's own SHA-1, base64 and ZooKeeper digest ids
 * (src/cli/digest.c) against published vectors and against
 *   echo -n 'admin:secret' | openssl dgst -binary -sha1 | base64
 *   = fvr2cB/fjGeAiX8g1aGhUm3ZICk=
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

static CU_SuiteInfo suites[] = {
    { "digest", NULL, NULL, NULL, NULL, digest_tests },
    CU_SUITE_INFO_NULL
};

int
main(int argc, char **argv)
{
    return cutest_main(argc, argv, suites);
}
