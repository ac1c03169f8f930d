/*
 * secret.c - the ZooKeeper digest credential "user:password": read from a
 * file that only its owner can read (or from the environment), checked
 * strictly, never copied into a message, wiped when freed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zkecommon.h"

const char *
zke_secret_check_stat(const struct stat *st, uid_t euid, char *why, size_t whylen)
{
    if (!S_ISREG(st->st_mode)) {
        snprintf(why, whylen, "not a regular file");
        return why;
    }
    if (st->st_uid != euid) {
        snprintf(why, whylen, "refused: owned by uid %lu, not by uid %lu that reads it "
                 "(chown it, or use a copy of your own)", (unsigned long)st->st_uid,
                 (unsigned long)euid);
        return why;
    }
    if (st->st_mode & (S_IRGRP | S_IWGRP | S_IROTH | S_IWOTH | S_IXGRP | S_IXOTH)) {
        snprintf(why, whylen, "refused: mode %04o is too open: group or others may use "
                 "it (chmod 600)", (unsigned)(st->st_mode & 07777));
        return why;
    }
    return NULL;
}

int
zke_secret_text_ok(const char *buf, size_t n, char *why, size_t whylen)
{
    const char *colon, *w = NULL;
    size_t i;

    if (n > 0 && buf[n - 1] == '\n')
        n--;
    if (n == 0)
        w = "is empty";
    for (i = 0; w == NULL && i < n; i++) {
        unsigned char ch = (unsigned char)buf[i];

        if (ch == '\n')
            w = "has more than one line";
        else if (ch == ' ' || ch == '\t' || ch == '\r')
            w = "contains whitespace";
        else if (ch < 0x20 || ch == 0x7f)
            w = "contains a control character";
    }
    if (w == NULL) {
        if ((colon = memchr(buf, ':', n)) == NULL)
            w = "has no ':' between user and password";
        else if (colon == buf)
            w = "has an empty user";
        else if (colon == buf + n - 1)
            w = "has an empty password";
    }
    if (w == NULL)
        return 1;
    snprintf(why, whylen, "%s (expected one line \"user:password\")", w);
    return 0;
}

int
zke_secret_read(const char *path, char **out, char *err, size_t errlen)
{
    char buf[ZKE_SECRET_MAX + 1], why[200], epath[300];
    struct stat st;
    size_t n = 0;
    ssize_t r;
    int fd, saved, rc = -2;

    *out = NULL;
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (path == NULL) {
        snprintf(err, errlen, "no credential file given");
        return -1;
    }
    zke_escape(path, strlen(path), epath, sizeof(epath));
    /* O_NONBLOCK: a FIFO must not hang us before fstat() refuses it */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
    if (fd == -1) {
        saved = errno;
        if (saved == ELOOP)
            snprintf(err, errlen, "%s: refused: a symbolic link (name the file itself)",
                     epath);
        else
            snprintf(err, errlen, "%s: cannot open: %s", epath, strerror(saved));
        return saved == ELOOP ? -2 : -1;
    }
    if (fstat(fd, &st) == -1) {
        saved = errno;
        close(fd);
        snprintf(err, errlen, "%s: cannot stat: %s", epath, strerror(saved));
        return -1;
    }
    if (zke_secret_check_stat(&st, geteuid(), why, sizeof(why)) != NULL) {
        close(fd);
        snprintf(err, errlen, "%s: %s", epath, why);
        return -2;
    }
    while (n < sizeof(buf)) {
        r = read(fd, buf + n, sizeof(buf) - n);
        if (r == -1 && errno == EINTR)
            continue;
        if (r == -1) {
            saved = errno;
            close(fd);
            explicit_bzero(buf, sizeof(buf));
            snprintf(err, errlen, "%s: cannot read: %s", epath, strerror(saved));
            return -1;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (n > ZKE_SECRET_MAX) {
        snprintf(err, errlen, "%s: larger than %d bytes (expected one line "
                 "\"user:password\")", epath, ZKE_SECRET_MAX);
    } else if (!zke_secret_text_ok(buf, n, why, sizeof(why))) {
        snprintf(err, errlen, "%s: %s", epath, why);
    } else {
        if (buf[n - 1] == '\n')
            n--;
        if ((*out = malloc(n + 1)) == NULL) {
            snprintf(err, errlen, "%s: out of memory", epath);
            rc = -1;
        } else {
            memcpy(*out, buf, n);
            (*out)[n] = '\0';
            rc = 0;
        }
    }
    explicit_bzero(buf, sizeof(buf));
    return rc;
}

int
zke_secret_from_env(char **out, char *err, size_t errlen)
{
    const char *file = getenv("ZKELECT_AUTH_FILE"), *env;
    char why[200];

    *out = NULL;
    if (file != NULL && *file != '\0')
        return zke_secret_read(file, out, err, errlen) == 0 ? 1 : -1;
    env = getenv("ZKELECT_AUTH");
    if (env == NULL || *env == '\0')
        return 0;
    if (!zke_secret_text_ok(env, strlen(env), why, sizeof(why))) {
        snprintf(err, errlen, "ZKELECT_AUTH: %s", why);
        return -1;
    }
    if ((*out = strdup(env)) == NULL) {
        snprintf(err, errlen, "ZKELECT_AUTH: out of memory");
        return -1;
    }
    return 1;
}

void
zke_secret_free(char *secret)
{
    if (secret == NULL)
        return;
    explicit_bzero(secret, strlen(secret));
    free(secret);
}
