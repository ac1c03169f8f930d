/*
 * reg.c - the fenced test register: a resource that a leader writes with its
 * epoch as the fencing token. It accepts a write only with an epoch >= the
 * highest epoch it has accepted, and refuses (and counts) older ones.
 *
 * It lives in files of a directory, shared by every process that writes
 * it (the hooks of every node, in any network namespace, and the harness's
 * pollers): register.state, one line "highest accepted refused", and
 * register.jsonl, one JSON line per attempt, in the order the attempts held
 * the lock:
 *   {"mono_ms":..,"node":"n1","epoch":7,"source":"takeover",
 *    "accepted":true,"highest":7}
 * ("highest" is the highest epoch after the attempt). The state file is
 * locked with flock(2) for the whole read-decide-append-update, so the
 * journal's order is the order of the decisions.
 *
 * With N active leaders (slots) the register is keyed per slot, as a
 * resource the actives share per slot compares each slot's epoch with the
 * last one it saw for that slot (zkelectd(8), N ACTIVE LEADERS): slot K > 0
 * keeps its state in register-K.state, and its journal lines add "slot":K
 * (slot 0's lines and state file are those of one leader). One journal: the
 * order of one slot's lines is the order of its decisions.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "fault.h"

static int
reg_fail(char *err, size_t errlen, const char *what, const char *path)
{
    snprintf(err, errlen, "%s %s: %s", what, path, strerror(errno));
    return -1;
}

/* A name as the daemon allows for node ids (and our sources). */
static int
reg_name_ok(const char *s)
{
    size_t i;

    if (s == NULL || s[0] == '\0' || strlen(s) > 64)
        return 0;
    for (i = 0; s[i] != '\0'; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')
            || (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_'
            || s[i] == '-' || s[i] == '+'))
            return 0;
    return 1;
}

/*
 * Write to slot's register at dir as node with epoch. Returns REG_ACCEPTED,
 * REG_REFUSED, or -1 with a message in err.
 */
int
reg_write(const char *dir, const char *node, int slot, uint64_t epoch, const char *source,
    char *err, size_t errlen)
{
    char spath[PATH_MAX], jpath[PATH_MAX], buf[128], *line = NULL;
    unsigned long long highest = 0, accepted = 0, refused = 0;
    struct timespec ts;
    cJSON *o = NULL;
    ssize_t n;
    size_t len;
    int sfd = -1, jfd = -1, rc = -1, ok;

    if (!reg_name_ok(node) || !reg_name_ok(source) || epoch == 0 || slot < 0
        || slot >= REG_SLOTS_MAX) {
        snprintf(err, errlen, "bad write: node '%s', slot %d, source '%s', epoch %" PRIu64
            " (names of [A-Za-z0-9._+-], slot 0..%d, epoch >= 1)", node ? node : "(null)",
            slot, source ? source : "(null)", epoch, REG_SLOTS_MAX - 1);
        return -1;
    }
    if (slot == 0)
        snprintf(spath, sizeof spath, "%s/register.state", dir);
    else
        snprintf(spath, sizeof spath, "%s/register-%d.state", dir, slot);
    snprintf(jpath, sizeof jpath, "%s/register.jsonl", dir);
    if ((sfd = open(spath, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) == -1)
        return reg_fail(err, errlen, "cannot open", spath);
    while (flock(sfd, LOCK_EX) == -1) {
        if (errno != EINTR) {
            reg_fail(err, errlen, "cannot lock", spath);
            goto out;
        }
    }
    if ((n = pread(sfd, buf, sizeof buf - 1, 0)) == -1) {
        reg_fail(err, errlen, "cannot read", spath);
        goto out;
    }
    buf[n] = '\0';
    if (n > 0 && sscanf(buf, "%llu %llu %llu", &highest, &accepted, &refused) != 3) {
        snprintf(err, errlen, "%s: malformed state '%.40s'", spath, buf);
        goto out;
    }
    ok = epoch >= highest;
    if (ok) {
        highest = epoch;
        accepted++;
    } else {
        refused++;
    }
    clock_gettime(CLOCK_MONOTONIC, &ts);
    if ((o = cJSON_CreateObject()) == NULL
        || cJSON_AddNumberToObject(o, "mono_ms",
            (double)((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000)) == NULL
        || cJSON_AddStringToObject(o, "node", node) == NULL
        || (slot > 0 && cJSON_AddNumberToObject(o, "slot", slot) == NULL)
        || cJSON_AddNumberToObject(o, "epoch", (double)epoch) == NULL
        || cJSON_AddStringToObject(o, "source", source) == NULL
        || cJSON_AddBoolToObject(o, "accepted", ok) == NULL
        || cJSON_AddNumberToObject(o, "highest", (double)highest) == NULL
        || (line = cJSON_PrintUnformatted(o)) == NULL) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    len = strlen(line);
    line[len] = '\n';               /* replaces the NUL: written with its length */
    if ((jfd = open(jpath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) == -1) {
        reg_fail(err, errlen, "cannot open", jpath);
        goto out;
    }
    if (write(jfd, line, len + 1) != (ssize_t)(len + 1)) {
        reg_fail(err, errlen, "cannot append to", jpath);
        goto out;
    }
    n = snprintf(buf, sizeof buf, "%llu %llu %llu\n", highest, accepted, refused);
    if (ftruncate(sfd, 0) == -1 || pwrite(sfd, buf, (size_t)n, 0) != n) {
        reg_fail(err, errlen, "cannot update", spath);
        goto out;
    }
    rc = ok ? REG_ACCEPTED : REG_REFUSED;
out:
    if (jfd != -1)
        close(jfd);
    close(sfd);                     /* releases the lock */
    cJSON_Delete(o);
    free(line);
    return rc;
}
