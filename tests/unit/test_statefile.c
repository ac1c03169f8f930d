/*
 * test_statefile.c - zkelectd's state file (src/daemon/statefile.c): the
 * parser, the reader's checks on bad files (owner, mode, garbage, another
 * node or group, truncated, symbolic link) and the atomic writer. Every bad
 * file must be refused with a message naming the file and the problem, and
 * yet report an active=1 line it holds. The slot line (N active leaders) is
 * optional: absent = slot 0, written only when not 0.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cutest.h"
#include "daemon/statefile.h"

static char dir[256];
static char path[512];

static const char good[] =
    "# comment\n"
    "version=1\n"
    "node=n1\n"
    "group=/cluster\n"
    "session=10000abcdef0042\n"
    "passwd=00112233445566778899aabbccddeeff\n"
    "timeout_ms=2000\n"
    "active=1\n"
    "epoch=42\n";

static int
setup(void)
{
    snprintf(dir, sizeof(dir), "%s/zke-statefile.XXXXXX", getenv("TMPDIR") ?
        getenv("TMPDIR") : "/tmp");
    if (mkdtemp(dir) == NULL)
        return -1;
    snprintf(path, sizeof(path), "%s/n1.state", dir);
    return 0;
}

static int
teardown(void)
{
    char cmd[600];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void
put(const char *text, size_t len, mode_t mode)
{
    int fd;

    unlink(path);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FATAL(write(fd, text, len) == (ssize_t)len);
    CU_ASSERT_FATAL(fchmod(fd, mode) == 0);
    close(fd);
}

/* Read back: the verdict, err must name the file and contain want. */
static enum zkd_state_found
get(struct zkd_state *st, const char *want)
{
    char err[1024] = "";
    enum zkd_state_found f = statefile_read(dir, "n1", "/cluster", st, err, sizeof(err));

    if (want != NULL) {
        CU_ASSERT_EQUAL(f, ZKD_STATE_BAD);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, path));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
        if (strstr(err, want) == NULL)
            fprintf(stderr, "\n  message: %s\n  wanted: %s\n", err, want);
    }
    return f;
}

static void
test_parse_good(void)
{
    struct zkd_state st;
    char err[256];

    CU_ASSERT_EQUAL(statefile_parse(good, strlen(good), "n1", "/cluster", &st, err,
        sizeof(err)), 0);
    CU_ASSERT_EQUAL(st.version, 1);
    CU_ASSERT_STRING_EQUAL(st.node, "n1");
    CU_ASSERT_STRING_EQUAL(st.group, "/cluster");
    CU_ASSERT_EQUAL(st.session, (int64_t)0x10000abcdef0042LL);
    CU_ASSERT_EQUAL(st.passwd_len, 16);
    CU_ASSERT_EQUAL(st.passwd[0], 0x00);
    CU_ASSERT_EQUAL(st.passwd[15], 0xff);
    CU_ASSERT_EQUAL(st.timeout_ms, 2000);
    CU_ASSERT_EQUAL(st.active, 1);
    CU_ASSERT_EQUAL(st.epoch, 42);
    CU_ASSERT_EQUAL(st.slot, 0);        /* no slot line: slot 0 */
}

/* The slot line: 0..15, once; the active line still reported when it is bad. */
static void
test_slot(void)
{
    struct zkd_state st;
    char text[700], w[600], err[600];
    struct zkd_state ws;
    static const struct {
        const char *line;               /* appended to good */
        const char *want;               /* NULL: accepted */
        int slot;
    } cases[] = {
        { "slot=1\n", NULL, 1 },
        { "slot=15\n", NULL, 15 },
        { "slot=0\n", NULL, 0 },
        { "slot=16\n", "line 10: slot: expected 0 to 15, got '16'", 0 },
        { "slot=-1\n", "line 10: slot: expected 0 to 15, got '-1'", 0 },
        { "slot=1x\n", "line 10: slot: expected 0 to 15, got '1x'", 0 },
        { "slot=\n", "line 10: slot: expected 0 to 15, got ''", 0 },
        { "slot=99999999999999999999\n", "line 10: slot: expected 0 to 15", 0 },
        { "slot=1\nslot=2\n", "line 11: slot given twice", 1 },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(text, sizeof(text), "%s%s", good, cases[i].line);
        put(text, strlen(text), 0600);
        if (cases[i].want == NULL) {
            CU_ASSERT_EQUAL(get(&st, NULL), ZKD_STATE_OK);
        } else {
            get(&st, cases[i].want);
            CU_ASSERT_EQUAL(st.active, 1);  /* still reported */
        }
        CU_ASSERT_EQUAL(st.slot, cases[i].slot);
    }
    /* written only when not 0: a slot-0 file is what earlier releases wrote */
    memset(&ws, 0, sizeof(ws));
    ws.version = 1;
    strcpy(ws.node, "n1");
    strcpy(ws.group, "/cluster");
    ws.active = 1;
    ws.epoch = 7;
    ws.slot = 3;
    CU_ASSERT_EQUAL_FATAL(statefile_write(dir, &ws, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(get(&st, NULL), ZKD_STATE_OK);
    CU_ASSERT_EQUAL(st.slot, 3);
    CU_ASSERT_EQUAL(st.epoch, 7);
    ws.slot = 0;
    CU_ASSERT_EQUAL_FATAL(statefile_write(dir, &ws, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(get(&st, NULL), ZKD_STATE_OK);
    CU_ASSERT_EQUAL(st.slot, 0);
    {
        FILE *f = fopen(path, "r");
        size_t n;

        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        n = fread(w, 1, sizeof(w) - 1, f);
        w[n] = '\0';
        fclose(f);
        CU_ASSERT_PTR_NULL(strstr(w, "slot="));
    }
}

static void
test_roundtrip(void)
{
    struct zkd_state w, r;
    char err[600];
    struct stat sb;

    memset(&w, 0, sizeof(w));
    w.version = 1;
    strcpy(w.node, "n1");
    strcpy(w.group, "/cluster");
    w.session = (int64_t)0x7fffabcd00000001LL;
    memset(w.passwd, 0xa5, sizeof(w.passwd));
    w.passwd_len = 16;
    w.timeout_ms = 10000;
    w.active = 1;
    w.epoch = 18446744073709551615ULL;
    unlink(path);
    CU_ASSERT_EQUAL_FATAL(statefile_write(dir, &w, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(stat(path, &sb), 0);
    CU_ASSERT_EQUAL(sb.st_mode & 07777, 0600);
    CU_ASSERT_EQUAL(get(&r, NULL), ZKD_STATE_OK);
    CU_ASSERT_EQUAL(r.session, w.session);
    CU_ASSERT_EQUAL(memcmp(r.passwd, w.passwd, 16), 0);
    CU_ASSERT_EQUAL(r.epoch, w.epoch);
    CU_ASSERT_EQUAL(r.active, 1);
    /* no temporary file left behind */
    snprintf(err, sizeof(err), "%s/.n1.state.tmp", dir);
    CU_ASSERT_NOT_EQUAL(access(err, F_OK), 0);
    /* rewritten: the new contents, not a mix */
    w.active = 0;
    w.session = 0;
    w.passwd_len = 0;
    CU_ASSERT_EQUAL_FATAL(statefile_write(dir, &w, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(get(&r, NULL), ZKD_STATE_OK);
    CU_ASSERT_EQUAL(r.active, 0);
    CU_ASSERT_EQUAL(r.session, 0);
}

static void
test_missing(void)
{
    struct zkd_state st;

    unlink(path);
    CU_ASSERT_EQUAL(get(&st, NULL), ZKD_STATE_NONE);
}

static void
test_bad_mode(void)
{
    struct zkd_state st;

    put(good, strlen(good), 0644);
    get(&st, "mode 0644: must be 0600");
    CU_ASSERT_EQUAL(st.active, 1);      /* still reported */
    CU_ASSERT_EQUAL(st.epoch, 42);
}

static void
test_bad_owner(void)
{
    struct zkd_state st;

    if (geteuid() != 0) {
        fprintf(stderr, "(not root: owner test skipped) ");
        return;
    }
    put(good, strlen(good), 0600);
    CU_ASSERT_FATAL(chown(path, 12345, 12345) == 0);
    get(&st, "owned by uid 12345, not by this daemon's uid 0");
    CU_ASSERT_EQUAL(st.active, 1);
}

static void
test_garbage(void)
{
    struct zkd_state st;
    static const char junk[] = "\x7f" "ELF\x02\x01\x01\x00\x00garbage";

    put(junk, sizeof(junk) - 1, 0600);
    get(&st, "NUL byte");
    CU_ASSERT_EQUAL(st.active, -1);     /* it does not say */
    put("hello world\n", 12, 0600);
    get(&st, "line 1: not key=value");
    put("active=yes\n", 11, 0600);
    get(&st, "active: expected 0 or 1");
    CU_ASSERT_EQUAL(st.active, -1);
}

static void
test_other_node(void)
{
    struct zkd_state st;
    char text[600];

    snprintf(text, sizeof(text), "%s", good);
    memcpy(strstr(text, "node=n1"), "node=n2", 7);
    put(text, strlen(text), 0600);
    get(&st, "written for node 'n2', but this node is 'n1'");
    CU_ASSERT_EQUAL(st.active, 1);
}

static void
test_other_group(void)
{
    struct zkd_state st;
    char text[600];
    const char *g = strstr(good, "group=/cluster\n");

    snprintf(text, sizeof(text), "%.*sgroup=/other\n%s", (int)(g - good), good,
        g + strlen("group=/cluster\n"));
    put(text, strlen(text), 0600);
    get(&st, "written for group '/other', but this node's group is '/cluster'");
    CU_ASSERT_EQUAL(st.active, 1);
}

static void
test_truncated(void)
{
    struct zkd_state st;
    const char *cut = strstr(good, "epoch=");

    /* cut in the last line: no newline at the end */
    put(good, strlen(good) - 2, 0600);
    get(&st, "no newline at the end: the file is truncated");
    CU_ASSERT_EQUAL(st.active, 1);
    /* cut at a line boundary: a key is missing */
    put(good, (size_t)(cut - good), 0600);
    get(&st, "no 'epoch' line: the file is truncated");
    CU_ASSERT_EQUAL(st.active, 1);
    put("", 0, 0600);
    get(&st, "empty file");
}

static void
test_symlink(void)
{
    struct zkd_state st;
    char target[600];

    snprintf(target, sizeof(target), "%s/elsewhere", dir);
    unlink(path);
    {
        int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        CU_ASSERT_FATAL(fd >= 0);
        CU_ASSERT(write(fd, good, strlen(good)) == (ssize_t)strlen(good));
        close(fd);
    }
    CU_ASSERT_FATAL(symlink(target, path) == 0);
    get(&st, "is a symbolic link: refused (not followed)");
    CU_ASSERT_EQUAL(st.active, -1);
    unlink(path);
}

static void
test_twice_unknown(void)
{
    struct zkd_state st;
    char text[700];

    snprintf(text, sizeof(text), "%sactive=0\n", good);
    put(text, strlen(text), 0600);
    get(&st, "line 10: active given twice");
    snprintf(text, sizeof(text), "%scolour=blue\n", good);
    put(text, strlen(text), 0600);
    get(&st, "line 10: unknown key 'colour'");
    snprintf(text, sizeof(text), "%s", good);
    memcpy(strstr(text, "version=1"), "version=9", 9);
    put(text, strlen(text), 0600);
    get(&st, "version: expected 1, got '9'");
}

static void
test_check_dir(void)
{
    char sub[600], err[800];

    CU_ASSERT_EQUAL(statefile_check_dir(dir, false, err, sizeof(err)), 0);
    snprintf(sub, sizeof(sub), "%s/sub", dir);
    CU_ASSERT_EQUAL(statefile_check_dir(sub, false, err, sizeof(err)), 0); /* creatable */
    CU_ASSERT_EQUAL(access(sub, F_OK), -1);                                /* not created */
    CU_ASSERT_EQUAL(statefile_check_dir(sub, true, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(access(sub, F_OK), 0);
    CU_ASSERT_EQUAL_FATAL(chmod(sub, 0777), 0);
    CU_ASSERT_EQUAL(statefile_check_dir(sub, false, err, sizeof(err)), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "writable by group or others"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, sub));
    CU_ASSERT_EQUAL(statefile_check_dir(path, false, err, sizeof(err)), -1);
}

static CU_TestInfo statefile_tests[] = {
    {"parse_good", test_parse_good},
    {"slot", test_slot},
    {"roundtrip_0600_atomic", test_roundtrip},
    {"missing", test_missing},
    {"bad_mode", test_bad_mode},
    {"bad_owner", test_bad_owner},
    {"garbage", test_garbage},
    {"other_node", test_other_node},
    {"other_group", test_other_group},
    {"truncated", test_truncated},
    {"symlink", test_symlink},
    {"twice_unknown_version", test_twice_unknown},
    {"check_dir", test_check_dir},
    CU_TEST_INFO_NULL
};

static CU_SuiteInfo suites[] = {
    {"statefile", setup, teardown, NULL, NULL, statefile_tests},
    CU_SUITE_INFO_NULL
};

int
main(int argc, char **argv)
{
    return cutest_main(argc, argv, suites);
}
