/*
 * cmd-leader.c - `zkelect leader`: the leader's id, status, epoch and site.
 * Exit 0 for a READY leader, 3 for none, 4 while it is taking over.
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
    int rc;

    if ((rc = cli_parse_simple(c, argc, argv, 0, 0, &a)) >= 0)
        return rc;
    if ((rc = cli_connect(c)) != CLI_OK || (rc = cli_check_group(c)) != CLI_OK)
        return rc;
    rc = view_load(c, &v, VIEW_MEMBERS | VIEW_ELECTED | VIEW_LEADER, false, fp, sizeof(fp));
    if (rc != ZOK) {
        view_free(&v);
        return cli_zk_fail(c, "read", fp, rc);
    }
    view_print_errors(&v);
    if (v.leader_version >= 0 && !v.have_leader) {
        /* the leader znode exists but cannot be decoded: say so, not "no leader" */
        view_free(&v);
        return CLI_EFAIL;
    }
    rc = out_leader(c, &v);
    view_free(&v);
    return rc;
}
