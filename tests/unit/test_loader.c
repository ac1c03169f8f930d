/*
 * test_loader.c - the policy loader (src/lib/policy.c): lookup order, every
 * load error with a module built to trigger it (tests/unit/badpolicies),
 * and the validation of what a policy chooses (choose, and ABI 1.1's
 * choose_set with modules of both minor versions).
 *
 * TEST_POLICY_DIR and TEST_BADPOLICY_DIR (set by policies/Makefile.inc) are
 * the build tree's module directories.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cutest.h"
#include "zkelect.h"
#include "policy.h"

#define BAD(name) TEST_BADPOLICY_DIR "/" name ".so"

static char tmpdir[256];          /* scratch directory, made by the suite init */
static char err[1024];            /* message buffer of the current test */

/* ------------------------------------------------------------------------
 * Helpers
 */

static int
suite_init(void)
{
    const char *t = getenv("TMPDIR");

    snprintf(tmpdir, sizeof(tmpdir), "%s/zkelect-loader.XXXXXX", t && *t ? t : "/tmp");
    return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
suite_clean(void)
{
    char cmd[300];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Assert that err contains s, showing both on failure. */
#define ASSERT_MSG_HAS(s)                                                     \
    do {                                                                      \
        char m_[1400];                                                        \
        snprintf(m_, sizeof(m_), "message '%s' lacks '%s'", err, (s));        \
        CU_assertImplementation(strstr(err, (s)) != NULL, __LINE__, m_,       \
                                __FILE__, "", CU_FALSE);                      \
    } while (0)

/* Load expecting failure rc; assert *out is NULL and the message names what. */
static void
expect_load_error(const char *name, const char *search, const struct zkelect_option *o,
                  size_t n, int rc, const char *what)
{
    struct zke_policy *p = (struct zke_policy *)&p; /* not NULL: must be reset */
    int got;

    err[0] = '\0';
    got = zke_policy_load(name, search, o, n, &p, err, sizeof(err));
    CU_ASSERT_EQUAL(got, rc);
    if (got != rc)
        fprintf(stderr, "load %s: got %s (%s), want %s\n", name, zkelect_errname(got),
                err, zkelect_errname(rc));
    CU_ASSERT_PTR_NULL(p);
    if (got == 0)
        zke_policy_unload(p);
    ASSERT_MSG_HAS(what);
}

static struct zke_policy *
load_ok(const char *name, const char *search, const struct zkelect_option *o, size_t n)
{
    struct zke_policy *p = NULL;
    int rc;

    err[0] = '\0';
    rc = zke_policy_load(name, search, o, n, &p, err, sizeof(err));
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    if (rc != 0)
        fprintf(stderr, "load %s: %s\n", name, err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    return p;
}

/* Three members: n1 (can lead), n2 (not eligible), n3 (can lead). */
static struct zkelect_member members[3];
static struct zkelect_policy_input input;

static void
input_reset(void)
{
    static const char *ids[] = { "n1", "n2", "n3" };
    size_t i;

    memset(members, 0, sizeof(members));
    for (i = 0; i < 3; i++) {
        members[i].id = ids[i];
        members[i].site = "dc1";
        members[i].seq = (int64_t)i;
        members[i].eligible = 1;
        members[i].healthy = 1;
    }
    members[1].eligible = 0;
    memset(&input, 0, sizeof(input));
    input.size = sizeof(input);
    input.members = members;
    input.nmembers = 3;
    input.reasons = ZKELECT_REASON_INITIAL;
}

/* Load chooser with one mode and optional extra option; run choose once. */
static int
choose_with(const char *mode, const char *k2, const char *v2, int *chosen)
{
    struct zkelect_option o[2] = { { "mode", mode }, { k2, v2 } };
    struct zke_policy *p = load_ok(BAD("chooser"), NULL, o, k2 ? 2 : 1);
    int rc;

    *chosen = 12345;
    err[0] = 'Z';
    err[1] = '\0';
    rc = zke_policy_choose(p, &input, chosen, err, sizeof(err));
    zke_policy_unload(p);
    return rc;
}

static int
count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    int c, n = 0;

    if (f == NULL)
        return -1;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

/* ------------------------------------------------------------------------
 * Lookup and successful loads
 */

static void
test_by_path(void)
{
    struct zke_policy *p = load_ok(BAD("chooser"), NULL, NULL, 0);

    CU_ASSERT_STRING_EQUAL(zke_policy_name(p), "chooser");
    CU_ASSERT_STRING_EQUAL(zke_policy_path(p), BAD("chooser"));
    zke_policy_unload(p);
}

static void
test_by_name_search_path(void)
{
    struct zke_policy *p;

    /* empty entries and a missing directory before the right one are skipped */
    p = load_ok("chooser", "::/nonexistent-zkelect-dir:" TEST_BADPOLICY_DIR ":", NULL, 0);
    CU_ASSERT_STRING_EQUAL(zke_policy_name(p), "chooser");
    CU_ASSERT_STRING_EQUAL(zke_policy_path(p), BAD("chooser"));
    zke_policy_unload(p);
    p = load_ok("site", TEST_POLICY_DIR, NULL, 0);
    CU_ASSERT_STRING_EQUAL(zke_policy_name(p), "site");
    CU_ASSERT_STRING_EQUAL(zke_policy_path(p), TEST_POLICY_DIR "/site.so");
    zke_policy_unload(p);
}

/* search_path first, then $ZKELECT_POLICY_PATH. */
static void
test_search_order(void)
{
    char link[320], *saved = getenv("ZKELECT_POLICY_PATH");
    struct zke_policy *p;

    saved = saved ? strdup(saved) : NULL;
    snprintf(link, sizeof(link), "%s/nodeid.so", tmpdir);
    unlink(link);
    CU_ASSERT_EQUAL_FATAL(symlink(BAD("chooser"), link), 0);
    CU_ASSERT_EQUAL_FATAL(setenv("ZKELECT_POLICY_PATH",
                                 "/nonexistent-zkelect-dir:" TEST_POLICY_DIR, 1), 0);

    p = load_ok("nodeid", tmpdir, NULL, 0);  /* the search path wins over the env */
    CU_ASSERT_STRING_EQUAL(zke_policy_name(p), "chooser");
    CU_ASSERT_STRING_EQUAL(zke_policy_path(p), link);
    zke_policy_unload(p);

    p = load_ok("nodeid", NULL, NULL, 0);    /* no search path: the env */
    CU_ASSERT_STRING_EQUAL(zke_policy_name(p), "nodeid");
    CU_ASSERT_STRING_EQUAL(zke_policy_path(p), TEST_POLICY_DIR "/nodeid.so");
    zke_policy_unload(p);

    p = load_ok("nodeid", "/nonexistent-zkelect-dir", NULL, 0); /* not there: the env */
    CU_ASSERT_STRING_EQUAL(zke_policy_name(p), "nodeid");
    zke_policy_unload(p);

    unlink(link);
    if (saved != NULL) {
        setenv("ZKELECT_POLICY_PATH", saved, 1);
        free(saved);
    } else {
        unsetenv("ZKELECT_POLICY_PATH");
    }
}

/* A module built for a later minor version (bigger descriptor) loads. */
static void
test_newer_minor(void)
{
    struct zke_policy *p = load_ok(BAD("newer"), NULL, NULL, 0);
    int chosen = -7;

    CU_ASSERT_STRING_EQUAL(zke_policy_name(p), "newer");
    input_reset();
    CU_ASSERT_EQUAL(zke_policy_choose(p, &input, &chosen, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(chosen, 0);
    CU_ASSERT_STRING_EQUAL(err, "chosen by policy newer"); /* the default reason */
    zke_policy_unload(p);
}

static void
test_options_reach_init(void)
{
    char k[8] = "alpha", v[8] = "one";
    struct zkelect_option o[3] = { { "mode", "echo" }, { k, v }, { "beta", "two words" } };
    struct zke_policy *p = load_ok(BAD("chooser"), NULL, o, 3);
    int chosen = 5;

    /* the host's option strings are only borrowed during init */
    memset(k, 0, sizeof(k));
    memset(v, 0, sizeof(v));
    input_reset();
    CU_ASSERT_EQUAL(zke_policy_choose(p, &input, &chosen, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(chosen, -1);
    CU_ASSERT_STRING_EQUAL(err, "mode=echo,alpha=one,beta=two words");
    zke_policy_unload(p);
}

/* fini() runs exactly once, at unload; never after a failed init(). */
static void
test_fini_once(void)
{
    char path[320];
    struct zkelect_option o[2] = { { "finifile", path }, { "failinit", "no thanks" } };
    struct zke_policy *p;

    snprintf(path, sizeof(path), "%s/fini.log", tmpdir);
    unlink(path);
    p = load_ok(BAD("chooser"), NULL, o, 1);
    CU_ASSERT_EQUAL(count_lines(path), -1);  /* not yet */
    zke_policy_unload(p);
    CU_ASSERT_EQUAL(count_lines(path), 1);

    unlink(path);
    expect_load_error(BAD("chooser"), NULL, o, 2, ZKELECT_EPOLINIT, "no thanks");
    CU_ASSERT_EQUAL(count_lines(path), -1);  /* init failed: no fini */
}

/* ------------------------------------------------------------------------
 * Load errors
 */

static void
test_not_found_by_name(void)
{
    char *saved = getenv("ZKELECT_POLICY_PATH");

    saved = saved ? strdup(saved) : NULL;
    setenv("ZKELECT_POLICY_PATH", "/zkelect-env-dir-a:/zkelect-env-dir-b", 1);
    expect_load_error("nosuch", "/zkelect-search-dir-a::/zkelect-search-dir-b", NULL, 0,
                      ZKELECT_ENOTFOUND, "nosuch.so");
    /* every directory tried is listed, in order */
    ASSERT_MSG_HAS("/zkelect-search-dir-a, /zkelect-search-dir-b, /zkelect-env-dir-a, "
                   "/zkelect-env-dir-b, " ZKELECT_POLICYDIR);
    if (saved != NULL) {
        setenv("ZKELECT_POLICY_PATH", saved, 1);
        free(saved);
    } else {
        unsetenv("ZKELECT_POLICY_PATH");
    }
}

static void
test_not_found_by_path(void)
{
    expect_load_error("/nonexistent-zkelect-dir/x.so", TEST_POLICY_DIR, NULL, 0,
                      ZKELECT_ENOTFOUND, "/nonexistent-zkelect-dir/x.so");
    /* a path is used as is: no search, even when the search path has it */
    expect_load_error("./nodeid.so", TEST_POLICY_DIR, NULL, 0, ZKELECT_ENOTFOUND,
                      "./nodeid.so");
    /* a directory is not a module file */
    expect_load_error(tmpdir, NULL, NULL, 0, ZKELECT_ENOTFOUND, tmpdir);
}

static void
test_bad_names(void)
{
    static const char *bad[] = { "", "Nodeid", "node id", "nodeid.so", "n\033x", "..",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" /* 65 */ };
    struct zke_policy *p = NULL;
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        expect_load_error(bad[i], TEST_POLICY_DIR, NULL, 0, ZKELECT_EINVAL,
                          "is invalid");
        CU_ASSERT_PTR_NULL(strchr(err, '\033')); /* untrusted text is cleaned */
    }
    /* 64 characters is the limit: valid name, so "not found" */
    expect_load_error("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                      TEST_POLICY_DIR, NULL, 0, ZKELECT_ENOTFOUND, ".so not found");
    CU_ASSERT_EQUAL(zke_policy_load(NULL, NULL, NULL, 0, &p, err, sizeof(err)),
                    ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_policy_load("nodeid", NULL, NULL, 0, NULL, err, sizeof(err)),
                    ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_policy_load("nodeid", NULL, NULL, 2, &p, err, sizeof(err)),
                    ZKELECT_EINVAL);
    CU_ASSERT_PTR_NULL(p);
}

/* A text file called x.so: found, but not a shared object. */
static void
test_not_a_shared_object(void)
{
    char path[320];
    FILE *f;

    snprintf(path, sizeof(path), "%s/x.so", tmpdir);
    f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("this is not an ELF file\n", f);
    fclose(f);
    expect_load_error("x", tmpdir, NULL, 0, ZKELECT_ENOTSO, path);
    ASSERT_MSG_HAS("not a loadable shared object");
    expect_load_error(path, NULL, NULL, 0, ZKELECT_ENOTSO, path);
    unlink(path);
}

/* A valid ELF object with an unresolved symbol: RTLD_NOW refuses it at load. */
static void
test_unresolved_symbol(void)
{
    expect_load_error(BAD("undefsym"), NULL, NULL, 0, ZKELECT_ENOTSO, BAD("undefsym"));
    ASSERT_MSG_HAS("zke_test_undefined_function");   /* dlerror() text */
}

static void
test_no_entry_symbol(void)
{
    expect_load_error(BAD("noentry"), NULL, NULL, 0, ZKELECT_ENOSYM, BAD("noentry"));
    ASSERT_MSG_HAS(ZKELECT_POLICY_ENTRY);
}

static void
test_abi_major(void)
{
    expect_load_error(BAD("abi2"), NULL, NULL, 0, ZKELECT_EABI, BAD("abi2"));
    ASSERT_MSG_HAS("ABI 2.0");
    ASSERT_MSG_HAS("ABI 1.");
}

static void
test_descriptor_too_small(void)
{
    expect_load_error(BAD("small"), NULL, NULL, 0, ZKELECT_ESTRUCT, BAD("small"));
    ASSERT_MSG_HAS("smaller");
}

static void
test_entry_returns_null(void)
{
    expect_load_error(BAD("nullentry"), NULL, NULL, 0, ZKELECT_ESTRUCT, BAD("nullentry"));
    ASSERT_MSG_HAS("returned NULL");
}

static void
test_null_choose(void)
{
    expect_load_error(BAD("nullchoose"), NULL, NULL, 0, ZKELECT_ENULLCB, BAD("nullchoose"));
    ASSERT_MSG_HAS("choose");
}

static void
test_init_failure(void)
{
    struct zkelect_option o[1] = { { "failinit", "chooser: option 'x' must be 42" } };

    expect_load_error(BAD("chooser"), NULL, o, 1, ZKELECT_EPOLINIT, BAD("chooser"));
    ASSERT_MSG_HAS("chooser: option 'x' must be 42");   /* the plugin's message */
    /* an option a shipped policy does not know fails its init, naming it */
    o[0].key = "colour";
    o[0].value = "blue";
    expect_load_error("nodeid", TEST_POLICY_DIR, o, 1, ZKELECT_EPOLINIT,
                      TEST_POLICY_DIR "/nodeid.so");
    ASSERT_MSG_HAS("colour");
}

/* A small or absent message buffer: truncated, still terminated, no overflow. */
static void
test_small_err_buffer(void)
{
    struct zke_policy *p = NULL;
    char small[12];

    memset(small, 'Q', sizeof(small));
    CU_ASSERT_EQUAL(zke_policy_load("nosuch", TEST_POLICY_DIR, NULL, 0, &p, small,
                                    sizeof(small)), ZKELECT_ENOTFOUND);
    CU_ASSERT_EQUAL(strlen(small), sizeof(small) - 1);
    CU_ASSERT_EQUAL(zke_policy_load(BAD("abi2"), NULL, NULL, 0, &p, NULL, 0), ZKELECT_EABI);
    CU_ASSERT_PTR_NULL(p);
}

/* ------------------------------------------------------------------------
 * Validation of choices
 */

static void
test_choice_out_of_range(void)
{
    int chosen;

    input_reset();
    CU_ASSERT_EQUAL(choose_with("index", "index", "3", &chosen), ZKELECT_EBADCHOICE);
    CU_ASSERT_EQUAL(chosen, -1);
    ASSERT_MSG_HAS("chooser");
    ASSERT_MSG_HAS(BAD("chooser"));
    ASSERT_MSG_HAS("index 3");
    CU_ASSERT_EQUAL(choose_with("index", "index", "-2", &chosen), ZKELECT_EBADCHOICE);
    CU_ASSERT_EQUAL(chosen, -1);
    ASSERT_MSG_HAS("index -2");
    CU_ASSERT_EQUAL(choose_with("index", "index", "2000000000", &chosen), ZKELECT_EBADCHOICE);
    input.nmembers = 0;   /* nothing is in range in an empty group */
    CU_ASSERT_EQUAL(choose_with("index", "index", "0", &chosen), ZKELECT_EBADCHOICE);
    CU_ASSERT_EQUAL(chosen, -1);
}

static void
test_choice_in_range(void)
{
    int chosen;

    input_reset();
    CU_ASSERT_EQUAL(choose_with("index", "index", "2", &chosen), 0);
    CU_ASSERT_EQUAL(chosen, 2);
    CU_ASSERT_STRING_EQUAL(err, "index 2");
    CU_ASSERT_EQUAL(choose_with("index", "index", "-1", &chosen), 0);
    CU_ASSERT_EQUAL(chosen, -1);
    CU_ASSERT_STRING_EQUAL(err, "index -1");
    CU_ASSERT_EQUAL(choose_with("index", "noreason", "on", &chosen), 0); /* index 0 */
    CU_ASSERT_EQUAL(chosen, 0);
    CU_ASSERT_STRING_EQUAL(err, "chosen by policy chooser");
}

static void
test_choice_cannot_lead(void)
{
    int chosen;

    input_reset();          /* n2 is not eligible */
    CU_ASSERT_EQUAL(choose_with("cannot-lead", NULL, NULL, &chosen), ZKELECT_EBADCHOICE);
    CU_ASSERT_EQUAL(chosen, -1);
    ASSERT_MSG_HAS("chose n2");
    ASSERT_MSG_HAS("not eligible");
    ASSERT_MSG_HAS(BAD("chooser"));

    input_reset();
    members[1].eligible = 1;
    members[2].healthy = 0;
    CU_ASSERT_EQUAL(choose_with("cannot-lead", NULL, NULL, &chosen), ZKELECT_EBADCHOICE);
    ASSERT_MSG_HAS("chose n3");
    ASSERT_MSG_HAS("unhealthy");

    input_reset();
    members[1].eligible = 1;
    members[0].excluded = 1;
    CU_ASSERT_EQUAL(choose_with("cannot-lead", NULL, NULL, &chosen), ZKELECT_EBADCHOICE);
    ASSERT_MSG_HAS("chose n1");
    ASSERT_MSG_HAS("excluded");
}

/* A member named in the exclusion list is refused even if its flag is clear. */
static void
test_choice_in_exclusion_list(void)
{
    struct zkelect_exclusion ex[2] = { { "n9", "watchdog", 1000 }, { "n3", "watchdog", 500 } };
    int chosen;

    input_reset();
    input.excluded = ex;
    input.nexcluded = 2;
    CU_ASSERT_EQUAL(choose_with("index", "index", "2", &chosen), ZKELECT_EBADCHOICE);
    CU_ASSERT_EQUAL(chosen, -1);
    ASSERT_MSG_HAS("chose n3, which is excluded");
    CU_ASSERT_EQUAL(choose_with("index", "index", "0", &chosen), 0);
    CU_ASSERT_EQUAL(chosen, 0);
}

static void
test_choose_failure(void)
{
    int chosen;

    input_reset();
    CU_ASSERT_EQUAL(choose_with("fail", NULL, NULL, &chosen), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(chosen, -1);
    ASSERT_MSG_HAS("policy chooser");
    ASSERT_MSG_HAS("chooser was told to fail");
}

static void
test_reason_terminated_and_cleaned(void)
{
    struct zkelect_option o[1] = { { "mode", "unterminated" } };
    struct zke_policy *p;
    char small[10];
    int chosen;
    size_t i, n;

    input_reset();
    CU_ASSERT_EQUAL(choose_with("unterminated", NULL, NULL, &chosen), 0);
    CU_ASSERT_EQUAL(chosen, 0);
    n = strlen(err);
    CU_ASSERT_EQUAL(n, sizeof(((struct zkelect_policy_output *)0)->reason) - 1);
    for (i = 0; i < n; i++)
        if (err[i] != 'x')
            break;
    CU_ASSERT_EQUAL(i, n);

    p = load_ok(BAD("chooser"), NULL, o, 1);
    memset(small, 'Q', sizeof(small));
    CU_ASSERT_EQUAL(zke_policy_choose(p, &input, &chosen, small, sizeof(small)), 0);
    CU_ASSERT_EQUAL(strlen(small), sizeof(small) - 1);
    CU_ASSERT_EQUAL(zke_policy_choose(p, &input, &chosen, NULL, 0), 0);
    CU_ASSERT_EQUAL(chosen, 0);
    zke_policy_unload(p);

    CU_ASSERT_EQUAL(choose_with("control", NULL, NULL, &chosen), 0);
    CU_ASSERT_EQUAL(chosen, -1);
    CU_ASSERT_STRING_EQUAL(err, "bad?line??end");
}

static void
test_null_arguments(void)
{
    struct zke_policy *p = load_ok(BAD("chooser"), NULL, NULL, 0);
    int chosen = 3;

    input_reset();
    CU_ASSERT_EQUAL(zke_policy_choose(NULL, &input, &chosen, err, sizeof(err)),
                    ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(chosen, -1);
    CU_ASSERT_EQUAL(zke_policy_choose(p, NULL, &chosen, err, sizeof(err)), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_policy_choose(p, &input, NULL, err, sizeof(err)), ZKELECT_EINVAL);
    input.members = NULL;
    CU_ASSERT_EQUAL(zke_policy_choose(p, &input, &chosen, err, sizeof(err)), ZKELECT_EINVAL);
    zke_policy_unload(p);
    zke_policy_unload(NULL);
    CU_ASSERT_STRING_EQUAL(zke_policy_name(NULL), "");
    CU_ASSERT_STRING_EQUAL(zke_policy_path(NULL), "");
}

/* ------------------------------------------------------------------------
 * ABI 1.1: choose_set
 */

static const char *no_holders[ZKELECT_POLICY_SLOTS_MAX]; /* every slot empty */

/* input_reset() plus the ABI 1.1 fields for N leaders. */
static void
input_reset_n(unsigned leaders)
{
    input_reset();
    input.leaders = leaders;
    input.slot_holders = no_holders;
    input.nslots = leaders;
}

/* Load setchooser with "set" (and an optional second option); run choose_set once. */
static int
choose_set_with(const char *set, const char *k2, const char *v2, int *chosen, int *n)
{
    struct zkelect_option o[2] = { { "set", set }, { k2, v2 } };
    struct zke_policy *p = load_ok(BAD("setchooser"), NULL, o, k2 ? 2 : 1);
    int rc;

    *n = 12345;
    err[0] = 'Z';
    err[1] = '\0';
    rc = zke_policy_choose_set(p, &input, chosen, n, err, sizeof(err));
    zke_policy_unload(p);
    return rc;
}

/* An ABI 1.0 module loads, chooses through choose() and has no choose_set. */
static void
test_abi10_module(void)
{
    struct zke_policy *p = load_ok(BAD("abi10"), NULL, NULL, 0);
    int chosen = -7, set[ZKELECT_POLICY_SLOTS_MAX], n = -7;

    CU_ASSERT_STRING_EQUAL(zke_policy_name(p), "abi10");
    CU_ASSERT_FALSE(zke_policy_can_choose_set(p));
    input_reset_n(1);
    CU_ASSERT_EQUAL(zke_policy_choose(p, &input, &chosen, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(chosen, 2);
    CU_ASSERT_STRING_EQUAL(err, "abi10: last that can lead");
    /* N = 1 through choose_set: choose(), a set of one */
    CU_ASSERT_EQUAL(zke_policy_choose_set(p, &input, set, &n, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_EQUAL(set[0], 2);
    CU_ASSERT_STRING_EQUAL(err, "abi10: last that can lead");
    /* N = 2: refused, naming the policy and why */
    input_reset_n(2);
    CU_ASSERT_EQUAL(zke_policy_choose_set(p, &input, set, &n, err, sizeof(err)),
                    ZKELECT_ECONFIG);
    CU_ASSERT_EQUAL(n, 0);
    ASSERT_MSG_HAS("policy abi10");
    ASSERT_MSG_HAS("no choose_set (ABI 1.0 module)");
    ASSERT_MSG_HAS("leaders = 1 only");
    zke_policy_unload(p);

    /* a 1.1 module with a NULL choose_set: N = 1 only as well */
    p = load_ok(BAD("chooser"), NULL, NULL, 0);
    CU_ASSERT_FALSE(zke_policy_can_choose_set(p));
    CU_ASSERT_EQUAL(zke_policy_choose_set(p, &input, set, &n, err, sizeof(err)),
                    ZKELECT_ECONFIG);
    ASSERT_MSG_HAS("ABI 1.1 module without it");
    zke_policy_unload(p);
    CU_ASSERT_FALSE(zke_policy_can_choose_set(NULL));
}

/* The shipped policies are 1.1 modules with choose_set. */
static void
test_shipped_can_choose_set(void)
{
    static const char *names[] = { "nodeid", "roundrobin", "site" };
    struct zke_policy *p;
    size_t i;

    for (i = 0; i < 3; i++) {
        p = load_ok(names[i], TEST_POLICY_DIR, NULL, 0);
        CU_ASSERT_TRUE(zke_policy_can_choose_set(p));
        zke_policy_unload(p);
    }
    p = load_ok(BAD("setchooser"), NULL, NULL, 0);
    CU_ASSERT_TRUE(zke_policy_can_choose_set(p));
    zke_policy_unload(p);
}

/* abi_minor 1 with the 1.0 size: refused at load. */
static void
test_descriptor_too_small_1_1(void)
{
    expect_load_error(BAD("short11"), NULL, NULL, 0, ZKELECT_ESTRUCT, BAD("short11"));
    ASSERT_MSG_HAS("ABI 1.1");
    ASSERT_MSG_HAS("smaller than the ABI 1.1 descriptor");
}

static void
test_set_valid(void)
{
    int set[ZKELECT_POLICY_SLOTS_MAX], n;

    input_reset_n(3);          /* n1, n3 can lead; n2 is not eligible */
    CU_ASSERT_EQUAL(choose_set_with("2,0", NULL, NULL, set, &n), 0);
    CU_ASSERT_EQUAL(n, 2);     /* fewer than leaders is fine */
    CU_ASSERT_EQUAL(set[0], 2);
    CU_ASSERT_EQUAL(set[1], 0);
    CU_ASSERT_STRING_EQUAL(err, "set of 2");
    CU_ASSERT_EQUAL(choose_set_with("", NULL, NULL, set, &n), 0);
    CU_ASSERT_EQUAL(n, 0);     /* nobody */
    CU_ASSERT_STRING_EQUAL(err, "set of 0");
    CU_ASSERT_EQUAL(choose_set_with("0", "noreason", "on", set, &n), 0);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_STRING_EQUAL(err, "chosen by policy setchooser");
    CU_ASSERT_EQUAL(choose_set_with("", "noreason", "on", set, &n), 0);
    CU_ASSERT_STRING_EQUAL(err, "the policy chose no leader");
    /* N = 1: choose(), not choose_set(): "choose" is choose()'s reason */
    input_reset_n(1);
    CU_ASSERT_EQUAL(choose_set_with("2,0", "fail", "on", set, &n), 0);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_EQUAL(set[0], 2);
    CU_ASSERT_STRING_EQUAL(err, "choose");
}

static void
test_set_out_of_range(void)
{
    int set[ZKELECT_POLICY_SLOTS_MAX], n;

    input_reset_n(3);
    CU_ASSERT_EQUAL(choose_set_with("0,3", NULL, NULL, set, &n), ZKELECT_EBADCHOICE);
    CU_ASSERT_EQUAL(n, 0);
    ASSERT_MSG_HAS("policy setchooser");
    ASSERT_MSG_HAS(BAD("setchooser"));
    ASSERT_MSG_HAS("index 3 at position 1");
    CU_ASSERT_EQUAL(choose_set_with("-1", NULL, NULL, set, &n), ZKELECT_EBADCHOICE);
    ASSERT_MSG_HAS("index -1 at position 0");
}

static void
test_set_duplicate(void)
{
    int set[ZKELECT_POLICY_SLOTS_MAX], n;

    input_reset_n(3);
    CU_ASSERT_EQUAL(choose_set_with("2,0,2", NULL, NULL, set, &n), ZKELECT_EBADCHOICE);
    CU_ASSERT_EQUAL(n, 0);
    ASSERT_MSG_HAS("policy setchooser");
    ASSERT_MSG_HAS("index 2 (n3) twice, at positions 0 and 2");
}

static void
test_set_cannot_lead(void)
{
    struct zkelect_exclusion ex[1] = { { "n3", "watchdog slot 1", 500 } };
    int set[ZKELECT_POLICY_SLOTS_MAX], n;

    input_reset_n(3);          /* n2 is not eligible */
    CU_ASSERT_EQUAL(choose_set_with("0,1", NULL, NULL, set, &n), ZKELECT_EBADCHOICE);
    CU_ASSERT_EQUAL(n, 0);
    ASSERT_MSG_HAS("policy setchooser");
    ASSERT_MSG_HAS("chose n2 (index 1 at position 1 of its set), which cannot lead "
                   "(not eligible)");
    input_reset_n(3);
    members[2].healthy = 0;
    CU_ASSERT_EQUAL(choose_set_with("2", NULL, NULL, set, &n), ZKELECT_EBADCHOICE);
    ASSERT_MSG_HAS("unhealthy");
    input_reset_n(3);
    input.excluded = ex;
    input.nexcluded = 1;       /* in the list, flag clear: still refused */
    CU_ASSERT_EQUAL(choose_set_with("0,2", NULL, NULL, set, &n), ZKELECT_EBADCHOICE);
    ASSERT_MSG_HAS("chose n3 (index 2 at position 1 of its set), which is excluded");
}

static void
test_set_bad_count(void)
{
    int set[ZKELECT_POLICY_SLOTS_MAX], n;

    input_reset_n(2);
    CU_ASSERT_EQUAL(choose_set_with("0,2", "count", "3", set, &n), ZKELECT_EBADCHOICE);
    CU_ASSERT_EQUAL(n, 0);
    ASSERT_MSG_HAS("policy setchooser");
    ASSERT_MSG_HAS("a set of 3 members, not 0 to leaders = 2");
    CU_ASSERT_EQUAL(choose_set_with("0", "count", "-1", set, &n), ZKELECT_EBADCHOICE);
    ASSERT_MSG_HAS("a set of -1 members");
    CU_ASSERT_EQUAL(choose_set_with("0,2", "count", "3000", set, &n), ZKELECT_EBADCHOICE);
}

static void
test_set_failure_and_arguments(void)
{
    struct zke_policy *p;
    int set[ZKELECT_POLICY_SLOTS_MAX], n;

    input_reset_n(2);
    CU_ASSERT_EQUAL(choose_set_with("0", "fail", "on", set, &n), ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(n, 0);
    ASSERT_MSG_HAS("policy setchooser");
    ASSERT_MSG_HAS("setchooser was told to fail");

    p = load_ok(BAD("setchooser"), NULL, NULL, 0);
    input_reset_n(0);          /* leaders 0 */
    CU_ASSERT_EQUAL(zke_policy_choose_set(p, &input, set, &n, err, sizeof(err)),
                    ZKELECT_EINVAL);
    ASSERT_MSG_HAS("leaders 0");
    input_reset_n(17);
    CU_ASSERT_EQUAL(zke_policy_choose_set(p, &input, set, &n, err, sizeof(err)),
                    ZKELECT_EINVAL);
    input_reset_n(2);
    input.size = offsetof(struct zkelect_policy_input, leaders); /* a 1.0 input */
    CU_ASSERT_EQUAL(zke_policy_choose_set(p, &input, set, &n, err, sizeof(err)),
                    ZKELECT_EINVAL);
    input_reset_n(2);
    input.slot_holders = NULL;
    CU_ASSERT_EQUAL(zke_policy_choose_set(p, &input, set, &n, err, sizeof(err)),
                    ZKELECT_EINVAL);
    input_reset_n(2);
    CU_ASSERT_EQUAL(zke_policy_choose_set(NULL, &input, set, &n, err, sizeof(err)),
                    ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_policy_choose_set(p, NULL, set, &n, err, sizeof(err)),
                    ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_policy_choose_set(p, &input, NULL, &n, err, sizeof(err)),
                    ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_policy_choose_set(p, &input, set, NULL, err, sizeof(err)),
                    ZKELECT_EINVAL);
    CU_ASSERT_EQUAL(zke_policy_choose_set(p, &input, set, &n, NULL, 0), 0);
    zke_policy_unload(p);
}

static CU_TestInfo lookup_tests[] = {
    { "load by path", test_by_path },
    { "load by name from the search path", test_by_name_search_path },
    { "search path before ZKELECT_POLICY_PATH", test_search_order },
    { "newer minor version loads", test_newer_minor },
    { "options reach init", test_options_reach_init },
    { "fini once, never after failed init", test_fini_once },
    CU_TEST_INFO_NULL
};

static CU_TestInfo error_tests[] = {
    { "ENOTFOUND by name lists the directories", test_not_found_by_name },
    { "ENOTFOUND by path", test_not_found_by_path },
    { "EINVAL bad names", test_bad_names },
    { "ENOTSO text file x.so", test_not_a_shared_object },
    { "ENOTSO unresolved symbol", test_unresolved_symbol },
    { "ENOSYM no entry symbol", test_no_entry_symbol },
    { "EABI major 2", test_abi_major },
    { "ESTRUCT descriptor too small", test_descriptor_too_small },
    { "ESTRUCT entry returns NULL", test_entry_returns_null },
    { "ENULLCB NULL choose", test_null_choose },
    { "EPOLINIT with the plugin message", test_init_failure },
    { "small or NULL message buffer", test_small_err_buffer },
    CU_TEST_INFO_NULL
};

static CU_TestInfo choose_tests[] = {
    { "EBADCHOICE index out of range", test_choice_out_of_range },
    { "valid indexes and -1 accepted", test_choice_in_range },
    { "EBADCHOICE member that cannot lead", test_choice_cannot_lead },
    { "EBADCHOICE member in the exclusion list", test_choice_in_exclusion_list },
    { "EINVAL when the policy fails", test_choose_failure },
    { "reason terminated and cleaned", test_reason_terminated_and_cleaned },
    { "NULL arguments", test_null_arguments },
    CU_TEST_INFO_NULL
};

static CU_TestInfo set_tests[] = {
    { "ABI 1.0 module: choose only, N = 1 only", test_abi10_module },
    { "shipped policies have choose_set", test_shipped_can_choose_set },
    { "ESTRUCT 1.1 descriptor without choose_set", test_descriptor_too_small_1_1 },
    { "valid sets accepted", test_set_valid },
    { "EBADCHOICE set index out of range", test_set_out_of_range },
    { "EBADCHOICE set index twice", test_set_duplicate },
    { "EBADCHOICE set member that cannot lead", test_set_cannot_lead },
    { "EBADCHOICE set larger than leaders", test_set_bad_count },
    { "EINVAL policy failure and bad arguments", test_set_failure_and_arguments },
    CU_TEST_INFO_NULL
};

static CU_SuiteInfo suites[] = {
    { "lookup", suite_init, suite_clean, NULL, NULL, lookup_tests },
    { "errors", suite_init, suite_clean, NULL, NULL, error_tests },
    { "choose", suite_init, suite_clean, NULL, NULL, choose_tests },
    { "choose_set", suite_init, suite_clean, NULL, NULL, set_tests },
    CU_SUITE_INFO_NULL
};

int
main(int argc, char **argv)
{
    return cutest_main(argc, argv, suites);
}
