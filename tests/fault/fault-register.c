/*
 * fault-register.c - write the fenced test register from a hook:
 *
 *   fault-register DIR NODE EPOCH SOURCE [SLOT]
 *
 * SLOT (default 0) is the slot of a group with N active leaders
 * ($ZKELECT_SLOT): each slot has its own register.
 * Exit 0 when the register accepted the write, 3 when it refused it (an
 * epoch older than the highest it has seen: a stale leader), 1 on an error,
 * 2 on a usage error. See reg.c for the register itself.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"

int
main(int argc, char **argv)
{
    char err[512], *end;
    uint64_t epoch;
    long slot = 0;
    int rc;

    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: fault-register DIR NODE EPOCH SOURCE [SLOT]\n");
        return 2;
    }
    if (argc == 6) {
        errno = 0;
        slot = strtol(argv[5], &end, 10);
        if (errno != 0 || end == argv[5] || *end != '\0' || slot < 0 || slot >= REG_SLOTS_MAX) {
            fprintf(stderr, "fault-register: bad slot '%s' (0..%d)\n", argv[5],
                REG_SLOTS_MAX - 1);
            return 2;
        }
    }
    errno = 0;
    epoch = strtoull(argv[3], &end, 10);
    if (errno != 0 || end == argv[3] || *end != '\0' || argv[3][0] == '-') {
        fprintf(stderr, "fault-register: bad epoch '%s'\n", argv[3]);
        return 2;
    }
    rc = reg_write(argv[1], argv[2], (int)slot, epoch, argv[4], err, sizeof err);
    if (rc == -1) {
        fprintf(stderr, "fault-register: %s\n", err);
        return 1;
    }
    if (rc == REG_REFUSED) {
        fprintf(stderr, "fault-register: %s slot %ld epoch %" PRIu64 " refused (stale)\n",
            argv[2], slot, epoch);
        return 3;
    }
    return 0;
}
