/*
 * driver.c - replay a fuzz target's corpus without libFuzzer (fuzz.h).
 *
 *   replay_NAME              every file of tests/fuzz/corpus/NAME/ (there
 *                            must be at least one), then of
 *                            tests/fuzz/crashes/NAME/ (if that exists), under
 *                            $ZKELECT_TOP_SRCDIR or else the source tree it
 *                            was built from
 *   replay_NAME FILE|DIR...  those files, e.g. a crash-* reproducer
 *
 * Each file is one test, run in a child process (so a crash, an abort from
 * a violated property, a sanitizer report or a leak fails that file only)
 * with a deadline of FUZZ_REPLAY_TIMEOUT_S. A file's name may also promise
 * the result, so that the seeds are regression tests of what is accepted:
 *   ok-*       the input must be accepted (fuzz_result 0);
 *   ENAME-*    it must be refused with ZKELECT_ENAME, e.g. EUTF8-overlong.json;
 *   other      (crash-*, ...) it must only not crash.
 * Files whose name starts with '.' are skipped. The last line printed is
 * "replay_NAME: N passed, N failed"; the exit status is 0 when none failed,
 * 1 otherwise, 99 when there is nothing to replay.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zkelect.h"
#include "fuzz.h"

#ifndef FUZZ_TOP_SRCDIR
#define FUZZ_TOP_SRCDIR "."
#endif

#define FUZZ_REPLAY_TIMEOUT_S   30      /* per input, sanitizers included */
#define FUZZ_EXIT_CODE_BASE     100     /* child exit status 100 + -code */
#define FUZZ_EXIT_ODD           99      /* child: a result outside -1..-99 */

/* The files to replay. */
struct fuzz_list {
    char **path;                        /* owned, malloc'd */
    size_t n;                           /* entries used */
    size_t cap;                         /* entries allocated */
};

static const char *fuzz_prog = "replay";   /* basename of argv[0] */

static void
fuzz_list_add(struct fuzz_list *l, const char *dir, const char *name)
{
    char **p;
    size_t n;

    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        if ((p = realloc(l->path, l->cap * sizeof(*p))) == NULL) {
            fprintf(stderr, "%s: out of memory\n", fuzz_prog);
            exit(99);
        }
        l->path = p;
    }
    n = (dir ? strlen(dir) + 1 : 0) + strlen(name) + 1;
    if ((l->path[l->n] = malloc(n)) == NULL) {
        fprintf(stderr, "%s: out of memory\n", fuzz_prog);
        exit(99);
    }
    if (dir)
        snprintf(l->path[l->n], n, "%s/%s", dir, name);
    else
        snprintf(l->path[l->n], n, "%s", name);
    l->n++;
}

static int
fuzz_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Add the regular files of dir (symbolic links followed), sorted. Returns
 * the number added, or -1 when dir cannot be read (errno set).
 */
static int
fuzz_list_dir(struct fuzz_list *l, const char *dir)
{
    struct dirent *de;
    struct stat st;
    size_t first = l->n;
    char path[4096];
    DIR *d;

    if ((d = opendir(dir)) == NULL)
        return -1;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            fuzz_list_add(l, dir, de->d_name);
    }
    closedir(d);
    qsort(l->path + first, l->n - first, sizeof(*l->path), fuzz_cmp);
    return (int)(l->n - first);
}

/* Read a whole file into a malloc'd buffer of exactly its size (ASan). */
static int
fuzz_read(const char *path, uint8_t **out, size_t *outlen)
{
    struct stat st;
    uint8_t *buf;
    size_t got = 0;
    FILE *f;

    if ((f = fopen(path, "rb")) == NULL)
        return -1;
    if (fstat(fileno(f), &st) != 0 || st.st_size < 0) {
        fclose(f);
        return -1;
    }
    if ((buf = malloc(st.st_size > 0 ? (size_t)st.st_size : 1)) == NULL) {
        fclose(f);
        errno = ENOMEM;
        return -1;
    }
    if (st.st_size > 0)
        got = fread(buf, 1, (size_t)st.st_size, f);
    if (ferror(f) || got != (size_t)st.st_size) {
        fclose(f);
        free(buf);
        errno = EIO;
        return -1;
    }
    fclose(f);
    *out = buf;
    *outlen = got;
    return 0;
}

/*
 * What the file name promises: 1 and *code (0 for "ok-", a ZKELECT_E* code
 * for "ENAME-"), 0 for nothing, -1 for an "E...-" name that is no code.
 */
static int
fuzz_expect(const char *path, int *code)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t n = strspn(base, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
    int c;

    if (strncmp(base, "ok-", 3) == 0) {
        *code = 0;
        return 1;
    }
    if (base[0] != 'E' || n < 2 || base[n] != '-')
        return 0;
    for (c = -1; c > -FUZZ_EXIT_CODE_BASE; c--) {
        if (strlen(zkelect_errname(c)) == n &&
            strncmp(zkelect_errname(c), base, n) == 0) {
            *code = c;
            return 1;
        }
    }
    return -1;
}

/* Run one input in a child. Returns 1 when it passed. */
static int
fuzz_replay(const char *path)
{
    const uint8_t *data;
    uint8_t *buf;
    size_t size;
    int status, expect, code = 0, got;
    pid_t pid;

    if ((expect = fuzz_expect(path, &code)) < 0) {
        printf("FAIL %s: the name promises an unknown code (ok-*, ENAME-* "
            "with a ZKELECT_ENAME, or anything else)\n", path);
        return 0;
    }
    if (fuzz_read(path, &buf, &size) != 0) {
        printf("FAIL %s: cannot read: %s\n", path, strerror(errno));
        return 0;
    }
    data = buf;
    fflush(stdout);
    fflush(stderr);
    if ((pid = fork()) == -1) {
        printf("FAIL %s: fork: %s\n", path, strerror(errno));
        free(buf);
        return 0;
    }
    if (pid == 0) {
        alarm(FUZZ_REPLAY_TIMEOUT_S);
        LLVMFuzzerTestOneInput(data, size);
        free(buf);
        got = fuzz_result;
        /* exit(), not _exit(): LeakSanitizer and atexit() handlers run. */
        exit(got == 0 ? 0 : got < 0 && got > -FUZZ_EXIT_CODE_BASE ?
            FUZZ_EXIT_CODE_BASE - got : FUZZ_EXIT_ODD);
    }
    free(buf);
    while (waitpid(pid, &status, 0) == -1) {
        if (errno != EINTR) {
            printf("FAIL %s: waitpid: %s\n", path, strerror(errno));
            return 0;
        }
    }
    if (WIFSIGNALED(status)) {
        printf("FAIL %s: %s (signal %d)\n", path,
            WTERMSIG(status) == SIGALRM ? "no result within the deadline" :
            WTERMSIG(status) == SIGABRT ? "aborted: a property failed (above)" :
            "crashed", WTERMSIG(status));
        return 0;
    }
    status = WEXITSTATUS(status);
    if (status != 0 && (status <= FUZZ_EXIT_CODE_BASE ||
        status >= 2 * FUZZ_EXIT_CODE_BASE)) {
        printf("FAIL %s: exited with status %d (a sanitizer report or a "
            "leak, above)\n", path, status);
        return 0;
    }
    got = status == 0 ? 0 : FUZZ_EXIT_CODE_BASE - status;
    if (expect && got != code) {
        printf("FAIL %s: expected %s, got %s\n", path,
            code == 0 ? "success" : zkelect_errname(code),
            got == 0 ? "success" : zkelect_errname(got));
        return 0;
    }
    printf("PASS %s: %s%s\n", path,
        got == 0 ? "accepted" : zkelect_errname(got),
        expect ? " as expected" : "");
    return 1;
}

int
main(int argc, char **argv)
{
    const char *top = getenv("ZKELECT_TOP_SRCDIR");
    struct fuzz_list l = { NULL, 0, 0 };
    char dir[4096];
    struct stat st;
    int i, passed = 0, failed = 0;
    size_t k;

    if (argv[0] != NULL)
        fuzz_prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    if (top == NULL || top[0] == '\0')
        top = FUZZ_TOP_SRCDIR;
    if (argc > 1) {
        for (i = 1; i < argc; i++) {
            if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
                if (fuzz_list_dir(&l, argv[i]) < 0) {
                    printf("FAIL %s: %s\n", argv[i], strerror(errno));
                    failed++;
                }
            } else {
                fuzz_list_add(&l, NULL, argv[i]);
            }
        }
    } else {
        snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", top, fuzz_target);
        errno = 0;
        if (fuzz_list_dir(&l, dir) <= 0) {
            printf("%s: no seed corpus in %s%s%s\n", fuzz_prog, dir,
                errno ? ": " : "", errno ? strerror(errno) : "");
            printf("%s: 0 passed, 1 failed\n", fuzz_prog);
            return 99;
        }
        snprintf(dir, sizeof(dir), "%s/tests/fuzz/crashes/%s", top,
            fuzz_target);
        if (fuzz_list_dir(&l, dir) < 0 && errno != ENOENT) {
            printf("FAIL %s: %s\n", dir, strerror(errno));
            failed++;
        }
    }
    for (k = 0; k < l.n; k++) {
        if (fuzz_replay(l.path[k]))
            passed++;
        else
            failed++;
        free(l.path[k]);
    }
    free(l.path);
    printf("%s: %d passed, %d failed\n", fuzz_prog, passed, failed);
    return failed == 0 ? 0 : 1;
}
