/*
 * cmd-leader.c - `zkelect leader`: the leader's id, status, epoch and site.
 * Exit 0 for a READY leader, 3 for none, 4 while it is taking over. With N > 1
 * leaders (config "leaders") every slot is shown: exit 0 when all N are
 * READY, 7 when some are, else 4 (some slot taking over) or 3.
 */
#include "config.h"

#include <stdio.h>

#include "cli.h"

int
cmd_leader(struct cli *c, int argc, char **argv)
{
    struct cli_args a;
    struct cli_view v;
    char fp[CLI_PATH_MAX];
    int rc, k;

    if ((rc = cli_parse_simple(c, argc, argv, 0, 0, &a)) >= 0)
        return rc;
    if ((rc = cli_connect(c)) != CLI_OK || (rc = cli_check_group(c)) != CLI_OK)
        return rc;
    /* the config gives N, the number of slots (leader-<k> znodes) to read */
    rc = view_load(c, &v, VIEW_MEMBERS | VIEW_ELECTED | VIEW_LEADER | VIEW_CONFIG, false, fp,
                   sizeof(fp));
    if (rc != ZOK) {
        view_free(&v);
        return cli_zk_fail(c, "read", fp, rc);
    }
    view_print_errors(&v);
    for (k = 0; k < v.leaders; k++)
        if (v.slot[k].version >= 0 && !v.slot[k].have) {
            /* a leader znode exists but cannot be decoded: say so, not "no leader" */
            view_free(&v);
            return CLI_EFAIL;
        }
    rc = out_leader(c, &v);
    view_free(&v);
    return rc;
}
