/*
 * test_common.c - the shared module src/common (zkecommon.h): election child
 * names, paths at the length limit, escaping, the credential reader (owner,
 * mode, type, contents), status names, the server probe.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>

#include <netinet/in.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cutest.h"
#include "codec.h"
#include "zkecommon.h"
#include "zkelect.h"

#define GUID "0123456789abcdef0123456789abcdef"

/* ---- election child names ----------------------------------------------- */

static void
test_child_good(void)
{
    char id[ZKE_ID_MAX + 1], guid[ZKE_GUID_LEN + 1], longid[ZKE_ID_MAX + 1];
    char name[ZKE_CHILD_MAX + 1];
    int64_t seq = -1;

    CU_ASSERT_EQUAL(zke_child_parse("n1_" GUID "_0000000042", id, sizeof(id), guid, &seq), 0);
    CU_ASSERT_STRING_EQUAL(id, "n1");
    CU_ASSERT_STRING_EQUAL(guid, GUID);
    CU_ASSERT_EQUAL(seq, 42);
    /* ids may hold '_' themselves: the guid and sequence are found from the end */
    CU_ASSERT_EQUAL(zke_child_parse("db_a.1-x_" GUID "_2147483647", id, sizeof(id), NULL,
                                    &seq), 0);
    CU_ASSERT_STRING_EQUAL(id, "db_a.1-x");
    CU_ASSERT_EQUAL(seq, 2147483647);
    /* the longest name: a 64-byte id */
    memset(longid, 'a', ZKE_ID_MAX);
    longid[ZKE_ID_MAX] = '\0';
    snprintf(name, sizeof(name), "%s_%s_%s", longid, GUID, "0000000001");
    CU_ASSERT_EQUAL(strlen(name), ZKE_CHILD_MAX);
    CU_ASSERT_EQUAL(zke_child_parse(name, id, sizeof(id), guid, &seq), 0);
    CU_ASSERT_STRING_EQUAL(id, longid);
}

static void
test_child_bad(void)
{
    static const char *const bad[] = {
        "",
        "n1",
        "n1_" GUID,                            /* no sequence */
        "n1_" GUID "_",                        /* empty sequence */
        "n1_" GUID "_000000042",               /* 9 digits */
        "n1_" GUID "_00000000042",             /* 11 digits */
        "n1_" GUID "_+000000042",              /* a sign */
        "n1_" GUID "_-000000042",
        "n1_" GUID "_ 000000042",              /* a space */
        "n1_" GUID "_00000000x2",
        "_" GUID "_0000000042",                /* empty id */
        GUID "_0000000042",                    /* no id at all */
        "n1-" GUID "_0000000042",              /* no '_' before the guid */
        "n1_0123456789ABCDEF0123456789abcdef_0000000042", /* upper-case guid */
        "n1_0123456789abcdef0123456789abcdeg_0000000042", /* not hex */
        "n1_0123456789abcdef0123456789abcde_0000000042",  /* 31 digits */
        "n 1_" GUID "_0000000042",             /* invalid id */
        ".n1_" GUID "_0000000042",
        "n1/x_" GUID "_0000000042",
    };
    char id[ZKE_ID_MAX + 1] = "untouched", guid[ZKE_GUID_LEN + 1], name[200];
    int64_t seq = 7;
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (zke_child_parse(bad[i], id, sizeof(id), guid, &seq) != -1)
            fprintf(stderr, "\naccepted: \"%s\"\n", bad[i]);
        CU_ASSERT_EQUAL(zke_child_parse(bad[i], id, sizeof(id), guid, &seq), -1);
    }
    CU_ASSERT_STRING_EQUAL(id, "untouched");
    CU_ASSERT_EQUAL(seq, 7);
    /* a 65-byte id */
    memset(name, 'a', 65);
    snprintf(name + 65, sizeof(name) - 65, "_%s_0000000001", GUID);
    CU_ASSERT_EQUAL(zke_child_parse(name, id, sizeof(id), guid, &seq), -1);
    /* an id buffer too small for the id */
    CU_ASSERT_EQUAL(zke_child_parse("n12_" GUID "_0000000042", id, 3, NULL, &seq), -1);
    CU_ASSERT_EQUAL(zke_child_parse(NULL, id, sizeof(id), NULL, &seq), -1);
}

/* ---- paths ---------------------------------------------------------------- */

static void
test_paths(void)
{
    char out[ZKE_PATH_MAX], base[ZKE_PATH_MAX], child[ZKE_CHILD_MAX + 1];
    static const char *const names[ZKE_ZN__COUNT] = {
        "nodes", "election", "elected", "leader", "config", "switchover", "history",
        "successor",
    };
    int z;

    for (z = 0; z < ZKE_ZN__COUNT; z++) {
        char want[64];
        CU_ASSERT_STRING_EQUAL(zke_layout_name((enum zke_znode)z), names[z]);
        snprintf(want, sizeof(want), "/cluster/%s", names[z]);
        CU_ASSERT_EQUAL(zke_layout_path(out, sizeof(out), "/cluster", (enum zke_znode)z,
                                        NULL), 0);
        CU_ASSERT_STRING_EQUAL(out, want);
    }
    CU_ASSERT_STRING_EQUAL(zke_layout_name(ZKE_ZN__COUNT), "?");
    CU_ASSERT_EQUAL(zke_layout_path(out, sizeof(out), "/g", ZKE_ZN_NODES, "n1"), 0);
    CU_ASSERT_STRING_EQUAL(out, "/g/nodes/n1");
    CU_ASSERT_EQUAL(zke_layout_path(out, sizeof(out), "/g", ZKE_ZN__COUNT, NULL), -1);

    /* at the limit: the longest base path and the longest child fit exactly */
    CU_ASSERT_EQUAL(ZKE_BASE_MAX + (int)strlen("/election/") + ZKE_CHILD_MAX,
                    ZKE_PATH_MAX - 1);
    memset(base, 'b', sizeof(base));
    base[0] = '/';
    base[ZKE_BASE_MAX] = '\0';
    memset(child, 'c', ZKE_ID_MAX);
    snprintf(child + ZKE_ID_MAX, sizeof(child) - ZKE_ID_MAX, "_%s_0000000001", GUID);
    CU_ASSERT_EQUAL(strlen(child), ZKE_CHILD_MAX);
    CU_ASSERT_EQUAL(zke_layout_base_valid(base, ZKE_BASE_MAX), 1);
    CU_ASSERT_EQUAL(zke_layout_path(out, sizeof(out), base, ZKE_ZN_ELECTION, child), 0);
    CU_ASSERT_EQUAL(strlen(out), ZKE_PATH_MAX - 1);
    /* one byte more does not fit: refused, not truncated */
    base[ZKE_BASE_MAX] = 'b';
    base[ZKE_BASE_MAX + 1] = '\0';
    CU_ASSERT_EQUAL(zke_layout_base_valid(base, ZKE_BASE_MAX), 0);
    CU_ASSERT_EQUAL(zke_layout_base_valid(base, 100000), 0);
    CU_ASSERT_EQUAL(zke_layout_path(out, sizeof(out), base, ZKE_ZN_ELECTION, child), -1);
    CU_ASSERT_STRING_EQUAL(out, "");
    CU_ASSERT_EQUAL(zke_layout_path(out, 8, "/cluster", ZKE_ZN_NODES, NULL), -1);
}

static void
test_base_valid(void)
{
    static const char *const good[] = { "/cluster", "/a", "/a/b.c/d-e_f", "/..a", "/a./b" };
    static const char *const bad[] = { "", "/", "cluster", "/a/", "//a", "/a//b", "/.",
                                       "/..", "/a/./b", "/a/../b", "/a\nb", "/a\x7f" };
    size_t i;

    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        CU_ASSERT_EQUAL(zke_layout_base_valid(good[i], ZKE_BASE_MAX), 1);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CU_ASSERT_EQUAL(zke_layout_base_valid(bad[i], ZKE_BASE_MAX), 0);
    CU_ASSERT_EQUAL(zke_layout_base_valid(NULL, ZKE_BASE_MAX), 0);
    CU_ASSERT_EQUAL(zke_layout_base_valid("/abc", 3), 0);
}

/* ---- escaping --------------------------------------------------------------- */

static void
test_escape(void)
{
    char out[64];

    zke_escape("plain text", 10, out, sizeof(out));
    CU_ASSERT_STRING_EQUAL(out, "plain text");
    zke_escape("a\nb\\c\x7f\xff", 7, out, sizeof(out));
    CU_ASSERT_STRING_EQUAL(out, "a\\x0ab\\x5cc\\x7f\\xff");
    zke_escape("nul\0after", 9, out, sizeof(out));     /* a length, not a C string */
    CU_ASSERT_STRING_EQUAL(out, "nul\\x00after");
    /* cut with "...", always terminated, never past outlen */
    memset(out, 'Z', sizeof(out));
    zke_escape("0123456789abcdef", 16, out, 12);
    CU_ASSERT_STRING_EQUAL(out, "0123456...");
    CU_ASSERT_EQUAL(out[12], 'Z');
    zke_escape("\x01\x02\x03", 3, out, 8);
    CU_ASSERT(strlen(out) < 8);
    zke_escape("abc", 3, out, 1);
    CU_ASSERT_STRING_EQUAL(out, "");
}

/* ---- status names ----------------------------------------------------------- */

static void
test_status(void)
{
    CU_ASSERT_STRING_EQUAL(zke_status_text(ZKELECT_STATUS_NONE), "NONE");
    CU_ASSERT_STRING_EQUAL(zke_status_text(ZKELECT_STATUS_PROGRESS), "PROGRESS");
    CU_ASSERT_STRING_EQUAL(zke_status_text(ZKELECT_STATUS_READY), "READY");
    CU_ASSERT_STRING_EQUAL(zke_status_text(3), "?");
    CU_ASSERT_STRING_EQUAL(zke_status_text(-1), "?");
    CU_ASSERT_STRING_EQUAL(zkelect_status_name(ZKELECT_STATUS_READY), "READY");
}

/* ---- the credential ----------------------------------------------------------- */

static char tmpdir[PATH_MAX];

static int
secret_setup(void)
{
    const char *t = getenv("TMPDIR");

    snprintf(tmpdir, sizeof(tmpdir), "%s/test_common.XXXXXX", t && *t ? t : "/tmp");
    return mkdtemp(tmpdir) == NULL;
}

static int
secret_cleanup(void)
{
    char cmd[PATH_MAX + 16];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) != 0;
}

static void
put(const char *name, const char *data, size_t n, mode_t mode, char *path, size_t pathlen)
{
    int fd;

    snprintf(path, pathlen, "%s/%s", tmpdir, name);
    unlink(path);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FATAL(write(fd, data, n) == (ssize_t)n);
    close(fd);
    CU_ASSERT_FATAL(chmod(path, mode) == 0);
}

/* rc of zke_secret_read; err must name the file and contain frag, never the secret */
static void
refused_at(const char *name, const char *data, size_t n, mode_t mode, int rc,
           const char *frag, int line)
{
    char path[PATH_MAX], err[600], *s = (char *)"sentinel";
    int got;

    put(name, data, n, mode, path, sizeof(path));
    got = zke_secret_read(path, &s, err, sizeof(err));
    if (got != rc || strstr(err, frag) == NULL)
        fprintf(stderr, "\nline %d: rc %d: %s\n", line, got, err);
    CU_ASSERT_EQUAL(got, rc);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT(strncmp(err, path, strlen(path)) == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, frag));
    CU_ASSERT_PTR_NULL(strstr(err, "s3cr3t"));
}
#define REFUSED(name, data, mode, frag) \
    refused_at((name), (data), strlen(data), (mode), -2, (frag), __LINE__)

static void
test_secret_good(void)
{
    char path[PATH_MAX], err[600], *s = NULL;

    put("good", "alice:s3cr3t\n", 13, 0600, path, sizeof(path));
    CU_ASSERT_EQUAL(zke_secret_read(path, &s, err, sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(s, "alice:s3cr3t");
    zke_secret_free(s);
    put("ro", "a:b:c", 5, 0400, path, sizeof(path));    /* stricter is fine */
    CU_ASSERT_EQUAL(zke_secret_read(path, &s, err, sizeof(err)), 0);
    CU_ASSERT_STRING_EQUAL(s, "a:b:c");
    zke_secret_free(s);
    zke_secret_free(NULL);
}

static void
test_secret_mode(void)
{
    static const mode_t modes[] = { 0644, 0640, 0604, 0620, 0602, 0610, 0601, 0666 };
    char frag[32];
    size_t i;

    for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        snprintf(frag, sizeof(frag), "refused: mode %04o is too open", (unsigned)modes[i]);
        REFUSED("open", "alice:s3cr3t\n", modes[i], frag);
    }
    REFUSED("open", "alice:s3cr3t\n", 0644, "chmod 600");
}

static void
test_secret_owner(void)
{
    struct stat st;
    char why[200];

    /* the owner check, on a made-up status: no second user needed */
    memset(&st, 0, sizeof(st));
    st.st_mode = S_IFREG | 0600;
    st.st_uid = 1000;
    CU_ASSERT_PTR_NULL(zke_secret_check_stat(&st, 1000, why, sizeof(why)));
    CU_ASSERT_PTR_NOT_NULL(zke_secret_check_stat(&st, 1001, why, sizeof(why)));
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "refused: owned by uid 1000, not by uid 1001"));
    CU_ASSERT_PTR_NOT_NULL(zke_secret_check_stat(&st, 0, why, sizeof(why)));
    st.st_mode = S_IFDIR | 0700;
    CU_ASSERT_PTR_NOT_NULL(zke_secret_check_stat(&st, 1000, why, sizeof(why)));
    CU_ASSERT_STRING_EQUAL(why, "not a regular file");
    /* and on a real file, when this test may give one away */
    if (geteuid() == 0) {
        char path[PATH_MAX], err[600], *s = (char *)"sentinel";

        put("theirs", "alice:s3cr3t\n", 13, 0600, path, sizeof(path));
        CU_ASSERT_FATAL(chown(path, 65534, 65534) == 0);
        CU_ASSERT_EQUAL(zke_secret_read(path, &s, err, sizeof(err)), -2);
        CU_ASSERT_PTR_NULL(s);
        CU_ASSERT(strncmp(err, path, strlen(path)) == 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "refused: owned by uid 65534, not by uid 0"));
    }
}

static void
test_secret_type(void)
{
    char path[PATH_MAX], link[PATH_MAX + 8], err[600], *s = (char *)"sentinel";

    put("target", "alice:s3cr3t\n", 13, 0600, path, sizeof(path));
    snprintf(link, sizeof(link), "%s/link", tmpdir);
    CU_ASSERT_FATAL(symlink(path, link) == 0);
    CU_ASSERT_EQUAL(zke_secret_read(link, &s, err, sizeof(err)), -2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "refused: a symbolic link"));
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_EQUAL(zke_secret_read(tmpdir, &s, err, sizeof(err)), -2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "not a regular file"));
    snprintf(link, sizeof(link), "%s/missing", tmpdir);
    CU_ASSERT_EQUAL(zke_secret_read(link, &s, err, sizeof(err)), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "No such file"));
    CU_ASSERT(strncmp(err, link, strlen(link)) == 0);
}

static void
test_secret_text(void)
{
    char big[ZKE_SECRET_MAX + 10];

    REFUSED("t", "alices3cr3t\n", 0600, "no ':'");
    REFUSED("t", ":s3cr3t\n", 0600, "empty user");
    REFUSED("t", "alice:\n", 0600, "empty password");
    REFUSED("t", "", 0600, "is empty");
    REFUSED("t", "alice:s3cr3t\nbob:x\n", 0600, "more than one line");
    REFUSED("t", "alice:s3cr3t \n", 0600, "whitespace");
    REFUSED("t", "alice:s3cr3t\r\n", 0600, "whitespace");
    REFUSED("t", "alice:s3cr3t\x1b\n", 0600, "control character");
    memset(big, 'a', sizeof(big));
    memcpy(big, "alice:s3cr3t", 12);
    refused_at("big", big, sizeof(big), 0600, -2, "larger than", __LINE__);
}

static void
test_secret_env(void)
{
    char path[PATH_MAX], err[600], *s = NULL;

    unsetenv("ZKELECT_AUTH_FILE");
    unsetenv("ZKELECT_AUTH");
    CU_ASSERT_EQUAL(zke_secret_from_env(&s, err, sizeof(err)), 0);
    CU_ASSERT_PTR_NULL(s);
    setenv("ZKELECT_AUTH", "bob:pw", 1);
    CU_ASSERT_EQUAL(zke_secret_from_env(&s, err, sizeof(err)), 1);
    CU_ASSERT_STRING_EQUAL(s, "bob:pw");
    zke_secret_free(s);
    setenv("ZKELECT_AUTH", "bob", 1);
    CU_ASSERT_EQUAL(zke_secret_from_env(&s, err, sizeof(err)), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "ZKELECT_AUTH: has no ':'"));
    /* the file wins over ZKELECT_AUTH, and is checked like any file */
    put("envfile", "carol:pw\n", 9, 0644, path, sizeof(path));
    setenv("ZKELECT_AUTH_FILE", path, 1);
    CU_ASSERT_EQUAL(zke_secret_from_env(&s, err, sizeof(err)), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "too open"));
    CU_ASSERT_FATAL(chmod(path, 0600) == 0);
    CU_ASSERT_EQUAL(zke_secret_from_env(&s, err, sizeof(err)), 1);
    CU_ASSERT_STRING_EQUAL(s, "carol:pw");
    zke_secret_free(s);
    unsetenv("ZKELECT_AUTH_FILE");
    unsetenv("ZKELECT_AUTH");
}

/* ---- the probe ----------------------------------------------------------------- */

static uint64_t
mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A loopback port with a listener (fd returned), or a closed one (fd -1). */
static int
port_of(bool listening, int *port)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CU_ASSERT_FATAL(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
    CU_ASSERT_FATAL(getsockname(fd, (struct sockaddr *)&a, &len) == 0);
    *port = ntohs(a.sin_port);
    if (listening) {
        CU_ASSERT_FATAL(listen(fd, 4) == 0);
        return fd;
    }
    close(fd);                        /* nothing listens there now */
    return -1;
}

static void
test_probe(void)
{
    char hosts[200], detail[512];
    int closed1, closed2, open, lfd;
    uint64_t t0;

    port_of(false, &closed1);
    port_of(false, &closed2);
    lfd = port_of(true, &open);
    snprintf(hosts, sizeof(hosts), "127.0.0.1:%d,127.0.0.1:%d/chroot", closed1, closed2);
    t0 = mono_ms();
    CU_ASSERT_EQUAL(zke_hosts_probe(hosts, 1000, detail, sizeof(detail)), ZKE_PROBE_REFUSED);
    CU_ASSERT(mono_ms() - t0 < 1000);
    CU_ASSERT_PTR_NOT_NULL(strstr(detail, "Connection refused"));
    /* one server listening: not refused */
    snprintf(hosts, sizeof(hosts), "127.0.0.1:%d,127.0.0.1:%d", closed1, open);
    CU_ASSERT_EQUAL(zke_hosts_probe(hosts, 1000, detail, sizeof(detail)), ZKE_PROBE_UNKNOWN);
    /* what the probe cannot judge is left to the client */
    CU_ASSERT_EQUAL(zke_hosts_probe("no-port", 100, detail, sizeof(detail)), ZKE_PROBE_UNKNOWN);
    CU_ASSERT_EQUAL(zke_hosts_probe(NULL, 100, NULL, 0), ZKE_PROBE_BADHOSTS);
    close(lfd);
}

static CU_TestInfo layout_tests[] = {
    { "child names: good", test_child_good },
    { "child names: bad", test_child_bad },
    { "paths at the length limit", test_paths },
    { "base paths", test_base_valid },
    CU_TEST_INFO_NULL,
};

static CU_TestInfo text_tests[] = {
    { "escape", test_escape },
    { "status names", test_status },
    CU_TEST_INFO_NULL,
};

static CU_TestInfo secret_tests[] = {
    { "good files", test_secret_good },
    { "mode 0600 enforced", test_secret_mode },
    { "owner", test_secret_owner },
    { "links, directories, missing files", test_secret_type },
    { "contents", test_secret_text },
    { "environment", test_secret_env },
    CU_TEST_INFO_NULL,
};

static CU_TestInfo probe_tests[] = {
    { "refused, listening", test_probe },
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    { "layout", NULL, NULL, NULL, NULL, layout_tests },
    { "text", NULL, NULL, NULL, NULL, text_tests },
    { "secret", secret_setup, secret_cleanup, NULL, NULL, secret_tests },
    { "probe", NULL, NULL, NULL, NULL, probe_tests },
    CU_SUITE_INFO_NULL,
};

int
main(int argc, char **argv)
{
    return cutest_main(argc, argv, suites);
}
