/*
 * status.c - the names of the leader status (enum zkelect_status): the
 * words of the leader znode, of the CLI's output, of the daemon's event log,
 * /status and hook environment.
 */
#include "config.h"

#include "zkecommon.h"

const char *
zke_status_text(int status)
{
    switch (status) {
    case 0:
        return "NONE";
    case 1:
        return "PROGRESS";
    case 2:
        return "READY";
    default:
        return "?";
    }
}
