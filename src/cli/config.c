/*
 * config.c - read-modify-write of the config znode with compare-and-set:
 * read it with its version (create it when absent), edit, write with that
 * version; on ZBADVERSION (or a concurrent create) read again and retry.
 * A malformed config is never overwritten: the operator fixes it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int
config_update(struct cli *c, int (*edit)(struct cli *, struct zke_config *, void *),
              void *arg, int32_t *version, bool *written)
{
    struct zke_config cfg;
    struct Stat st, st2;
    struct ACL_vector keep, aclv;
    struct ACL acl[16];
    char *buf, *out, err[256];
    size_t outlen;
    int rc, len, try, e, n;
    bool exists;

    *written = false;
    *version = -1;
    if ((rc = cli_check_group(c)) != CLI_OK)
        return rc;
    for (try = 0; try < CLI_CAS_TRIES; try++) {
        rc = cli_get(c, c->p_config, false, &buf, &len, &st);
        if (rc == ZNONODE) {
            memset(&cfg, 0, sizeof(cfg));
            exists = false;
        } else if (rc != ZOK) {
            return cli_zk_fail(c, "read", c->p_config, rc);
        } else {
            exists = true;
            rc = zke_config_decode(buf, len, &cfg, err, sizeof(err));
            free(buf);
            if (rc != 0) {
                cli_err("malformed data: znode %s: %s", c->p_config, err);
                cli_err("refusing to overwrite a malformed config: fix or delete %s first",
                        c->p_config);
                return CLI_EFAIL;
            }
        }
        e = edit(c, &cfg, arg);
        if (e == CONFIG_UNCHANGED) {
            *version = exists ? st.version : -1;
            return CLI_OK;
        }
        if (e != 0)
            return e;
        if ((rc = zke_config_encode(&cfg, &out, &outlen)) != 0) {
            cli_err("cannot encode the new config (%d)", rc);
            return CLI_EFAIL;
        }
        if (exists) {
            rc = zoo_set2(c->zh, c->p_config, out, (int)outlen, st.version, &st2);
            free(out);
            if (rc == ZBADVERSION || rc == ZNONODE)
                continue;   /* changed or deleted meanwhile: read again */
            if (rc != ZOK)
                return cli_zk_fail(c, "write", c->p_config, rc);
            *version = st2.version;
        } else {
            n = cli_child_acl(c, &keep, acl, (int)(sizeof(acl) / sizeof(acl[0])));
            if (n < 0) {
                free(out);
                return cli_zk_fail(c, "read the ACL of", c->path, n);
            }
            if (n == 0) {
                free(out);
                deallocate_ACL_vector(&keep);
                cli_err("cannot create %s: the ACL of %s grants nothing to pass on (use -a)",
                        c->p_config, c->path);
                return CLI_EFAIL;
            }
            aclv.count = n;
            aclv.data = acl;
            rc = zoo_create2(c->zh, c->p_config, out, (int)outlen, &aclv,
                             ZOO_PERSISTENT, NULL, 0, &st2);
            deallocate_ACL_vector(&keep);
            free(out);
            if (rc == ZNODEEXISTS)
                continue;   /* created meanwhile: read it */
            if (rc == ZNONODE)
                return cli_check_group(c) != CLI_OK ? CLI_EFAIL :
                       cli_zk_fail(c, "create", c->p_config, rc);
            if (rc != ZOK)
                return cli_zk_fail(c, "create", c->p_config, rc);
            *version = st2.version;
        }
        *written = true;
        return CLI_OK;
    }
    cli_err("%s changed concurrently %d times in a row; giving up (try again)", c->p_config,
            CLI_CAS_TRIES);
    return CLI_EFAIL;
}
