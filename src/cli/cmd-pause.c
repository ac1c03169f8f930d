/*
 * cmd-pause.c - `zkelect pause` / `zkelect resume`: set or clear
 * config.paused with compare-and-set. While paused the elector changes
 * leadership only when the leader is lost (or an operator asks for a
 * switchover).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <cJSON.h>

#include "cli.h"

enum { OPT_WAIT = 1 };

static int
paused_edit(struct cli *c, struct zke_config *cfg, void *arg)
{
    bool want = *(bool *)arg;

    (void)c;
    if (cfg->paused == want)
        return CONFIG_UNCHANGED;   /* already so: nothing to write */
    cfg->paused = want;
    return 0;
}

static int
pause_resume(struct cli *c, int argc, char **argv, bool paused)
{
    static const struct cli_optdef defs[] = {
        { "wait", 0, 2, OPT_WAIT },
        { NULL, 0, 0, 0 }
    };
    struct cli_args a;
    const char *arg;
    cJSON *res = NULL;
    int id, rc, wait_s = 0;
    int32_t version;
    bool written;

    memset(&a, 0, sizeof(a));
    a.argc = argc;
    a.argv = argv;
    while ((id = cli_next_opt(c, &a, defs, &arg)) != 0) {
        switch (id) {
        case CLI_OPT_ERR:
            return CLI_EUSAGE;
        case CLI_OPT_HELP:
            return cli_cmd_help(c);
        case CLI_OPT_JSON:
            c->json = true;
            break;
        case OPT_WAIT:
            if (cli_opt_wait(c, arg, &wait_s) != CLI_OK)
                return CLI_EUSAGE;
            break;
        }
    }
    if (a.npos > 0) {
        char esc[128];
        cli_escape(a.pos[0], esc, sizeof(esc));
        return cli_usage_err(c, "unexpected argument \"%s\"", esc);
    }
    if ((rc = cli_connect(c)) != CLI_OK)
        return rc;
    rc = config_update(c, paused_edit, &paused, &version, &written);
    if (rc != CLI_OK)
        return rc;
    if (c->json) {
        if ((res = cJSON_CreateObject()) == NULL)
            return out_json(NULL);
        cJSON_AddBoolToObject(res, "paused", paused);
        cJSON_AddBoolToObject(res, "changed", written);
        cJSON_AddNumberToObject(res, "config_version", version);
    } else {
        printf("%s; config version %d\n", written ? (paused ? "elections paused" :
               "elections resumed") : (paused ? "elections were already paused" :
               "elections were not paused"), (int)version);
        fflush(stdout);
    }
    return out_wait_config(c, wait_s, version, res);
}

int
cmd_pause(struct cli *c, int argc, char **argv)
{
    return pause_resume(c, argc, argv, true);
}

int
cmd_resume(struct cli *c, int argc, char **argv)
{
    return pause_resume(c, argc, argv, false);
}
