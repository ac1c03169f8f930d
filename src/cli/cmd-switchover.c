/*
 * cmd-switchover.c - `zkelect switchover [--to NODE | --site SITE] [--at TIME]
 * [--wait[=SECONDS]]` and `zkelect switchover --cancel`: ask the elector for
 * a planned move of leadership through the normal two-phase handover, by
 * writing <path>/switchover {v, id, to, at_ms, by, site, due_ms, cancel}
 * with compare-and-set. The request id is one above both the last request
 * and the last one the elector acted on (elected.switchover_id).
 *
 * There is one request at a time: a new one replaces a pending one, and
 * --cancel is a request of its own ({"cancel": true}) that the elector
 * acknowledges without moving anything. A scheduled request (due_ms, from
 * --at) is acted on by the elector at its time, measured on the elector's
 * monotonic clock from when it read the request; so the checks that depend
 * on the moment (the node is healthy, is not the leader) are the elector's
 * then, and the CLI only notes them. A paused group would refuse it when
 * it fires, so the CLI refuses it at once.
 *
 * With N > 1 leaders, --from NODE moves the slot NODE holds in the decision
 * (the request's "from"); without it a switchover moves slot 0, as before
 * slots. NODE must hold a slot; the target must hold none (a node holds at
 * most one slot), and "the best other node" means one that holds no slot.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "cli.h"
#include "direct.h"

enum { OPT_WAIT = 1, OPT_TO, OPT_SITE, OPT_AT, OPT_CANCEL, OPT_FROM };

struct so_wait {
    uint64_t id;                      /* the request written */
    char from[ZKE_ID_MAX + 1];        /* elected leader when it was written */
    const char *to;                   /* requested node or NULL */
    const char *site;                 /* requested site or NULL */
    bool cancel;                      /* the request cancels the pending one */
    int slot;                         /* the slot that moves (0 without --from) */
    bool slots;                       /* --from given: wait on the decision's slot */
};

/* The pending scheduled request in v, or NULL. */
static const struct zke_switchover *
so_scheduled(const struct cli_view *v)
{
    if (!v->have_switchover || v->switchover.id == 0 || v->switchover.due_ms == 0 ||
        v->switchover.cancel)
        return NULL;
    if (v->have_elected && v->elected.switchover_id >= v->switchover.id)
        return NULL;
    return &v->switchover;
}

/* A member that can be asked for: its record is valid and it is registered. */
static bool
so_registered(const struct cli_member *m)
{
    return m->have_rec && m->seq >= 0;
}

/* --site: 0 to go on, else an exit code. scheduled: only what cannot change
 * by the due time is refused; the rest is a note. */
static int
so_check_site(struct cli *c, const struct cli_view *v, const char *site, const char *cur,
              bool scheduled, bool from)
{
    const struct cli_member *m;
    int i, n = 0, can = 0;

    for (i = 0; i < v->nmembers; i++) {
        m = &v->members[i];
        if (!so_registered(m) || strcmp(m->rec.site, site) != 0)
            continue;
        n++;
        /* --from: a node that holds another slot cannot take this one */
        if (view_can_lead(v, m) && (!from || view_slot_of(v, m->id) < 0))
            can++;
    }
    if (n == 0) {
        cli_err("refused: site %s has no nodes (no registered member of %s is on it)", site,
                c->path);
        return CLI_EREFUSED;
    }
    m = *cur ? view_member(v, cur) : NULL;
    if (scheduled) {
        if (m && m->have_rec && strcmp(m->rec.site, site) == 0)
            cli_err("note: the leader %s is on site %s now; if it still is at the time, the "
                    "elector moves nothing", cur, site);
        if (can == 0)
            cli_err("note: no node of site %s can lead now (eligible, healthy, not excluded, "
                    "not drained); the elector refuses the switchover if none can at its time",
                    site);
        return CLI_OK;
    }
    if (m && m->have_rec && strcmp(m->rec.site, site) == 0) {
        cli_err("refused: the leader %s is already on site %s", cur, site);
        return CLI_EREFUSED;
    }
    if (can == 0) {
        cli_err("refused: no node of site %s can lead (%d registered; none eligible, healthy, "
                "not excluded%s and not drained)", site, n, from ? ", holding no slot" : "");
        return CLI_EREFUSED;
    }
    return CLI_OK;
}

/*
 * --to NODE or any other node: refuse what the elector would refuse; 0 to
 * go on, else an exit code. scheduled: only a node that is not a member is
 * refused; the rest may change by the due time and is a note.
 */
static int
so_check(struct cli *c, const struct cli_view *v, const char *to, const char *cur,
         bool scheduled, bool from)
{
    const struct cli_member *m;
    const struct zke_exclusion *x;
    const struct zke_drain *d;
    char why[160] = "", left[32];
    bool drained;
    int i;

    if (to) {
        m = view_member(v, to);
        if (m == NULL || (!m->have_rec && !m->bad_rec)) {
            cli_err("refused: %s is not a member of group %s", to, c->path);
            return CLI_EREFUSED;
        }
        if (m->bad_rec) {
            cli_err("refused: the member record of %s is malformed", to);
            return CLI_EREFUSED;
        }
        d = view_drain(v, to, cli_wall_ms(), &drained);
        x = view_excluded(v, to);
        if (m->seq < 0)
            snprintf(why, sizeof(why), "%s has no election znode (not registered)", to);
        else if (!m->rec.eligible)
            snprintf(why, sizeof(why), "%s is not eligible to lead (its own configuration)", to);
        else if (!m->rec.healthy)
            snprintf(why, sizeof(why), "%s is not healthy (its health check fails)", to);
        else if (x != NULL)
            snprintf(why, sizeof(why), "%s is excluded by the elector (%s, %llu ms left)", to,
                     x->reason, (unsigned long long)x->remaining_ms);
        else if (drained) {
            cli_fmt_duration(d->until_ms - cli_wall_ms(), left, sizeof(left));
            snprintf(why, sizeof(why), "%s is drained for %s more (zkelect undrain %s)", to, left,
                     to);
        } else if (!scheduled && *cur && strcmp(cur, to) == 0)
            snprintf(why, sizeof(why), "%s is already the leader", to);
        else if (!scheduled && from && (i = view_slot_of(v, to)) >= 0)
            snprintf(why, sizeof(why), "%s already holds slot %d (a node holds at most one "
                     "slot)", to, i);
        if (*why == '\0')
            return CLI_OK;
        if (scheduled) {
            cli_err("note: %s now; the elector refuses the switchover if it still is at its "
                    "time", why);
            return CLI_OK;
        }
        cli_err("refused: %s", why);
        return CLI_EREFUSED;
    }
    if (scheduled)
        return CLI_OK;
    if (*cur == '\0') {
        cli_err("there is no leader to move away from (the elector elects one as soon as a "
                "node can lead; use --to NODE to ask for a node)");
        return CLI_ENOLEADER;
    }
    for (i = 0; i < v->nmembers; i++)
        if (strcmp(v->members[i].id, cur) != 0 && view_can_lead(v, &v->members[i]) &&
            (!from || view_slot_of(v, v->members[i].id) < 0))
            return CLI_OK;
    cli_err("refused: no node other than %s can lead (eligible, healthy, not excluded, not "
            "drained%s)", cur, from ? ", holding no slot" : "");
    return CLI_EREFUSED;
}

static int
so_done(struct cli *c, const struct cli_view *v, void *arg)
{
    struct so_wait *w = arg;
    const struct cli_member *m;
    const char *id;
    uint64_t epoch;

    (void)c;
    if (!v->have_elected || v->elected.switchover_id < w->id)
        return 0;
    if (w->cancel)
        return 1;   /* acknowledged: nothing was to move */
    if (w->slots) {
        /* --from: the slot the node held must have moved to another node */
        view_slot_decision(v, w->slot, &id, &epoch);
        if (w->site && *id && strcmp(id, w->from) == 0 &&
            (m = view_member(v, id)) != NULL && m->have_rec && strcmp(m->rec.site, w->site) == 0)
            return 1;
        if (strcmp(id, w->from) == 0) {
            cli_err("the elector refused switchover %llu: %s", (unsigned long long)w->id,
                    v->elected.reason);
            return CLI_EREFUSED;
        }
        if (w->to && *id && strcmp(id, w->to) != 0)
            cli_err("note: the elector chose %s for slot %d, not %s: %s", id, w->slot, w->to,
                    v->elected.reason);
        return 1;
    }
    if (w->site && *v->elected.leader && strcmp(v->elected.leader, w->from) == 0 &&
        (m = view_member(v, v->elected.leader)) != NULL && m->have_rec &&
        strcmp(m->rec.site, w->site) == 0)
        return 1;   /* (scheduled) the leader was on the site already: nothing to move */
    if (strcmp(v->elected.leader, w->from) == 0) {
        cli_err("the elector refused switchover %llu: %s", (unsigned long long)w->id,
                v->elected.reason);
        return CLI_EREFUSED;
    }
    if (w->to && *v->elected.leader && strcmp(v->elected.leader, w->to) != 0)
        cli_err("note: the elector chose %s, not %s: %s", v->elected.leader, w->to,
                v->elected.reason);
    if (w->site && *v->elected.leader && strcmp(v->elected.leader_site, w->site) != 0 &&
        ((m = view_member(v, v->elected.leader)) == NULL || !m->have_rec ||
         strcmp(m->rec.site, w->site) != 0))
        cli_err("note: the elector chose %s, not a node of site %s: %s", v->elected.leader,
                w->site, v->elected.reason);
    return 1;
}

/* Write the request with compare-and-set against version (-1: create it).
 * 0 written, 1 to read again (changed meanwhile), else an exit code. */
static int
so_write(struct cli *c, const struct zke_switchover *so, int32_t version)
{
    struct ACL_vector keep, aclv;
    struct ACL acl[16];
    struct Stat st;
    char *out;
    size_t outlen;
    int rc, n;

    if ((rc = zke_switchover_encode(so, &out, &outlen)) != 0) {
        cli_err("cannot encode the switchover request (%d)", rc);
        return CLI_EFAIL;
    }
    if (version >= 0) {
        rc = zoo_set2(c->zh, c->p_switchover, out, (int)outlen, version, &st);
        free(out);
        if (rc == ZBADVERSION || rc == ZNONODE)
            return 1;
        if (rc != ZOK)
            return cli_zk_fail(c, "write", c->p_switchover, rc);
        return 0;
    }
    n = cli_child_acl(c, &keep, acl, (int)(sizeof(acl) / sizeof(acl[0])));
    if (n <= 0) {
        free(out);
        if (n == 0) {
            deallocate_ACL_vector(&keep);
            cli_err("cannot create %s: the ACL of %s grants nothing to pass on (use -a)",
                    c->p_switchover, c->path);
            return CLI_EFAIL;
        }
        return cli_zk_fail(c, "read the ACL of", c->path, n);
    }
    aclv.count = n;
    aclv.data = acl;
    rc = zoo_create(c->zh, c->p_switchover, out, (int)outlen, &aclv, ZOO_PERSISTENT, NULL, 0);
    deallocate_ACL_vector(&keep);
    free(out);
    if (rc == ZNODEEXISTS)
        return 1;
    if (rc != ZOK)
        return cli_zk_fail(c, "create", c->p_switchover, rc);
    return 0;
}

/*
 * The direct switchover (doc/PROTOCOL.md §4, "The operator's direct
 * switchover"): when the elector's standing succession covers the request,
 * write the decision with it, in one multi checked against everything the
 * succession was made on. SO_WRITTEN; SO_REFUSED (nothing written: ask
 * the elector, WHY says why); SO_UNKNOWN (read it back); SO_ENDED (the
 * session ended with the write in flight: nothing to read it back on).
 */
enum { SO_WRITTEN, SO_REFUSED, SO_UNKNOWN, SO_ENDED };

static int
so_direct(struct cli *c, const struct cli_view *v, const struct zke_switchover *so,
          int32_t version, const char **why)
{
    struct ACL_vector keep, aclv, *ap = NULL;
    struct ACL acl[16];
    int rc, n;

    if (version < 0 || v->successor.config_version < 0) {
        /* it may create a znode: with the ACL the CLI gives what it creates */
        n = cli_child_acl(c, &keep, acl, (int)(sizeof(acl) / sizeof(acl[0])));
        if (n <= 0) {
            if (n == 0)
                deallocate_ACL_vector(&keep);
            *why = "no ACL to create with (the request says what is wrong)";
            return SO_REFUSED;
        }
        aclv.count = n;
        aclv.data = acl;
        ap = &aclv;
    }
    rc = zke_direct_switchover(c->zh, c->path, &v->elected, v->elected_version, &v->successor,
                               v->successor_version, so, version, ap);
    if (ap)
        deallocate_ACL_vector(&keep);
    switch (zke_direct_outcome(rc)) {
    case ZKE_DIRECT_WRITTEN:
        return SO_WRITTEN;
    case ZKE_DIRECT_UNKNOWN:
        *why = zerror(rc);
        return SO_UNKNOWN;
    case ZKE_DIRECT_UNKNOWN_ENDED:
        *why = zerror(rc);
        return SO_ENDED;
    case ZKE_DIRECT_NOT_WRITTEN:
        break;
    }
    /* nothing was written: the request goes to the elector */
    if (rc == ZNOAUTH)
        *why = "not authorized to write the decision (with the group's ACLs, the members' "
               "znodes are theirs)";
    else if (rc == ZBADVERSION || rc == ZNONODE || rc == ZNODEEXISTS)
        *why = "the succession or the decision changed meanwhile";
    else
        *why = zerror(rc);
    return SO_REFUSED;
}

/* Whether the view's decision acknowledges request SO, written directly:
   its id, author and time are ours alone. */
static bool
so_acknowledged(const struct cli_view *v, const struct zke_switchover *so)
{
    return v->have_elected && v->elected.switchover_id == so->id && v->have_switchover &&
           v->switchover.id == so->id && strcmp(v->switchover.by, so->by) == 0 &&
           v->switchover.at_ms == so->at_ms;
}

int
cmd_switchover(struct cli *c, int argc, char **argv)
{
    static const struct cli_optdef defs[] = {
        { "wait", 0, 2, OPT_WAIT },
        { "to", 0, 1, OPT_TO },
        { "site", 0, 1, OPT_SITE },
        { "at", 0, 1, OPT_AT },
        { "cancel", 0, 0, OPT_CANCEL },
        { "from", 0, 1, OPT_FROM },
        { NULL, 0, 0, 0 }
    };
    struct cli_args a;
    struct cli_view v;
    struct zke_switchover so, old;
    const struct zke_switchover *sched;
    struct so_wait sw;
    const char *arg, *to = NULL, *site = NULL, *at = NULL, *cur, *from = NULL;
    char fp[CLI_PATH_MAX], what[200], esc[400], why[200], when[64], left[32], now_s[64];
    cJSON *res = NULL;
    int id, rc, wait_s = 0, try, slot = 0;
    int64_t due = 0, now;
    int32_t so_version;
    bool cancel = false, replaced = false, direct = false, could_direct = false;
    struct zke_switchover lost[CLI_CAS_TRIES]; /* direct writes of unknown outcome */
    char lost_to[CLI_CAS_TRIES][ZKE_ID_MAX + 1]; /* the successor each of them named */
    int nlost = 0, i;
    const char *lost_why = "";
    const char *direct_why = NULL;
    char direct_to[ZKE_ID_MAX + 1] = "";
    uint64_t deadline;

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
        case OPT_TO:
            if (!zke_id_valid(arg)) {
                cli_escape(arg, esc, sizeof(esc));
                return cli_usage_err(c, "--to: \"%s\" is not a valid node id (1 to %d of "
                                     "[A-Za-z0-9._-], not starting with . or -)", esc, ZKE_ID_MAX);
            }
            to = arg;
            break;
        case OPT_SITE:
            if (*arg == '\0' || !zke_site_valid(arg)) {
                cli_escape(arg, esc, sizeof(esc));
                return cli_usage_err(c, "--site: \"%s\" is not a valid site name (1 to %d of "
                                     "[A-Za-z0-9._-], not starting with . or -)", esc,
                                     ZKE_SITE_MAX);
            }
            site = arg;
            break;
        case OPT_AT:
            at = arg;
            break;
        case OPT_CANCEL:
            cancel = true;
            break;
        case OPT_FROM:
            if (!zke_id_valid(arg)) {
                cli_escape(arg, esc, sizeof(esc));
                return cli_usage_err(c, "--from: \"%s\" is not a valid node id (1 to %d of "
                                     "[A-Za-z0-9._-], not starting with . or -)", esc, ZKE_ID_MAX);
            }
            from = arg;
            break;
        }
    }
    if (a.npos > 0) {
        cli_escape(a.pos[0], esc, sizeof(esc));
        return cli_usage_err(c, "unexpected argument \"%s\" (use --to NODE or --site SITE)", esc);
    }
    if (to && site)
        return cli_usage_err(c, "--to and --site exclude each other (a switchover goes to a node "
                             "or to the best node of a site)");
    if (cancel && (to || site || at))
        return cli_usage_err(c, "--cancel takes no --to, --site or --at (it cancels the pending "
                             "scheduled switchover)");
    if (cancel && from)
        return cli_usage_err(c, "--cancel takes no --from (it cancels the pending scheduled "
                             "switchover, whichever slot it moves)");
    if (from && to && strcmp(from, to) == 0)
        return cli_usage_err(c, "--from and --to name the same node %s (--from is the node "
                             "whose slot moves away from it)", from);
    if (at) {
        now = cli_wall_ms();
        cli_escape(at, esc, sizeof(esc));
        if (cli_parse_time(at, now, &due, why, sizeof(why)) != 0)
            return cli_usage_err(c, "--at: \"%s\" %s", esc, why);
        cli_time_str(now, now_s, sizeof(now_s));
        if (due <= now)
            return cli_usage_err(c, "--at: \"%s\" is in the past (it is now %s local time)", esc,
                                 now_s);
        if (due - now > CLI_AHEAD_MAX_MS)
            return cli_usage_err(c, "--at: \"%s\" is more than 7 days ahead (it is now %s local "
                                 "time)", esc, now_s);
    }
    if ((rc = cli_connect(c)) != CLI_OK || (rc = cli_check_group(c)) != CLI_OK)
        return rc;

    memset(&sw, 0, sizeof(sw));
    memset(&old, 0, sizeof(old));
    /* a direct write of unknown outcome is looked for in every read after
       it, and once more after the last try when any was lost: a read may
       come from a server that has not applied it yet, and a later try
       refused by the versions it changed would otherwise end as "changed
       concurrently" while it was the decision (nothing of ours that
       followed it was applied: they checked versions it changed) */
    for (try = 0; try < CLI_CAS_TRIES || (try == CLI_CAS_TRIES && nlost > 0); try++) {
        rc = view_load(c, &v, VIEW_ALL | VIEW_SUCCESSOR, false, fp, sizeof(fp));
        if (rc != ZOK) {
            view_free(&v);
            if (nlost > 0)
                cli_err("switchover %llu: its direct write's reply was lost (%s) and it cannot "
                        "be read back now: it may or may not have been decided (zkelect status "
                        "shows the decision)", (unsigned long long)lost[nlost - 1].id, lost_why);
            return cli_zk_fail(c, "read", fp, rc);
        }
        for (i = 0; i < nlost && !direct; i++)
            if (so_acknowledged(&v, &lost[i])) {
                so = lost[i];
                sw.id = so.id;
                snprintf(direct_to, sizeof(direct_to), "%s", lost_to[i]);
                direct = true;
            }
        if (direct) {
            view_free(&v);
            break;
        }
        if (try >= CLI_CAS_TRIES) {
            view_free(&v);
            cli_err("switchover %llu: %s lost (%s) and a read after the last try did not "
                    "find it decided; giving up after %d tries (it may still be applied: "
                    "zkelect status shows the decision before you try again)",
                    (unsigned long long)lost[nlost - 1].id,
                    nlost > 1 ? "the replies of its direct writes were" :
                    "the reply of its direct write was", lost_why, CLI_CAS_TRIES);
            return CLI_EFAIL;
        }
        if (v.elected_version >= 0 && !v.have_elected) {
            view_print_errors(&v);
            cli_err("cannot number the request while %s is malformed", c->p_elected);
            view_free(&v);
            return CLI_EFAIL;
        }
        if (due && v.bad_config) {
            view_print_errors(&v);
            cli_err("cannot tell whether the group is paused while %s is malformed",
                    c->p_config);
            view_free(&v);
            return CLI_EFAIL;
        }
        if (due && v.have_config && v.config.paused) {
            cli_err("refused: the group is paused; a scheduled switchover would not fire "
                    "(zkelect resume first)");
            view_free(&v);
            return CLI_EREFUSED;
        }
        if (v.bad_switchover && try == 0)
            cli_err("warning: replacing the malformed request in %s", c->p_switchover);
        sched = so_scheduled(&v);
        if (cancel && sched == NULL) {
            cli_err("no scheduled switchover is pending: nothing to cancel");
            view_free(&v);
            return CLI_EFAIL;
        }
        replaced = sched != NULL;
        if (sched)
            old = *sched;
        cur = v.have_leader ? v.leader.id : v.have_elected ? v.elected.leader : "";
        if (from) {
            /* the slot to move: the one the decision gives NODE */
            if ((slot = view_slot_of(&v, from)) < 0) {
                if (!v.have_elected)
                    cli_err("refused: %s holds no slot (%s has no decision yet)", from, c->path);
                else
                    cli_err("refused: %s holds no slot (the decision of %s names it in none "
                            "of its %d slot%s)", from, c->path, v.elected.nslots + 1,
                            v.elected.nslots ? "s" : "");
                view_free(&v);
                return CLI_EREFUSED;
            }
            cur = from;
        }
        if (!cancel && (rc = site ? so_check_site(c, &v, site, cur, due != 0, from != NULL) :
                             so_check(c, &v, to, cur, due != 0, from != NULL)) != CLI_OK) {
            view_free(&v);
            return rc;
        }
        memset(&so, 0, sizeof(so));
        so.id = v.have_switchover ? v.switchover.id : 0;
        if (v.have_elected && v.elected.switchover_id > so.id)
            so.id = v.elected.switchover_id;
        so.id++;
        if (to)
            snprintf(so.to, sizeof(so.to), "%s", to);
        if (site)
            snprintf(so.site, sizeof(so.site), "%s", site);
        if (from)
            snprintf(so.from, sizeof(so.from), "%s", from);
        so.due_ms = due;
        so.cancel = cancel;
        so.at_ms = cli_wall_ms();
        cli_requester(so.by, sizeof(so.by));
        sw.id = so.id;
        snprintf(sw.from, sizeof(sw.from), "%s", from ? from :
                 v.have_elected ? v.elected.leader : cur);
        sw.slot = slot;
        sw.slots = from != NULL;
        sw.to = to;
        sw.site = site;
        sw.cancel = cancel;
        so_version = v.switchover_version;
        could_direct = zke_direct_switchover_kind(v.have_elected ? &v.elected : NULL, &so,
                                                  v.leaders) == NULL;
        direct_why = zke_direct_switchover_refusal(v.have_elected ? &v.elected : NULL,
                                                   v.elected_version,
                                                   v.have_successor ? &v.successor : NULL, &so,
                                                   v.leaders);
        if (direct_why == NULL) {
            snprintf(direct_to, sizeof(direct_to), "%s",
                     zke_successor_slot(&v.successor, 0)->successor);
            rc = so_direct(c, &v, &so, so_version, &direct_why);
            view_free(&v);
            if (rc == SO_WRITTEN) {
                direct = true;
                break;
            }
            if (rc == SO_UNKNOWN) {
                snprintf(lost_to[nlost], sizeof(lost_to[nlost]), "%s", direct_to);
                lost[nlost++] = so;
                lost_why = direct_why;
                continue;
            }
            if (rc == SO_ENDED) {
                cli_err("switchover %llu: the ZooKeeper session ended (%s) while its direct "
                        "write was in flight: it may or may not have been decided (zkelect "
                        "status shows the decision; switchover %llu is in its \"switchover_id\" "
                        "if it was)", (unsigned long long)so.id, direct_why,
                        (unsigned long long)so.id);
                return CLI_EFAIL;
            }
        }
        view_free(&v);
        if ((rc = so_write(c, &so, so_version)) == 0)
            break;
        if (rc != 1)
            return rc;
    }
    if (try >= CLI_CAS_TRIES && !direct) {
        cli_err("%s changed concurrently %d times in a row; giving up (try again)",
                c->p_switchover, CLI_CAS_TRIES);
        return CLI_EFAIL;
    }
    if (replaced && !cancel) {
        cli_time_str(old.due_ms, when, sizeof(when));
        cli_err("note: this request replaces scheduled switchover %llu (due at %s)",
                (unsigned long long)old.id, when);
    }
    if (c->json) {
        if ((res = cJSON_CreateObject()) == NULL)
            return out_json(NULL);
        cJSON_AddNumberToObject(res, "id", (double)so.id);
        if (*sw.from)
            cJSON_AddStringToObject(res, "from", sw.from);
        else
            cJSON_AddNullToObject(res, "from");
        if (to)
            cJSON_AddStringToObject(res, "to", to);
        else
            cJSON_AddNullToObject(res, "to");
        if (site)
            cJSON_AddStringToObject(res, "site", site);
        else
            cJSON_AddNullToObject(res, "site");
        cJSON_AddNumberToObject(res, "due_ms", (double)due);
        if (due) {
            cli_time_str(due, when, sizeof(when));
            cJSON_AddStringToObject(res, "due", when);
        }
        cJSON_AddBoolToObject(res, "cancel", cancel);
        cJSON_AddBoolToObject(res, "direct", direct);
        if (direct)
            cJSON_AddStringToObject(res, "decided", direct_to);
        /* only for a request that could have gone directly (could_direct) */
        if (!direct && direct_why && could_direct)
            cJSON_AddStringToObject(res, "direct_refused", direct_why);
        if (from)   /* without --from: the fields of releases before slots */
            cJSON_AddNumberToObject(res, "slot", slot);
        if (replaced)
            cJSON_AddNumberToObject(res, cancel ? "cancels" : "replaces", (double)old.id);
        cJSON_AddStringToObject(res, "by", so.by);
    } else if (cancel) {
        cli_time_str(old.due_ms, when, sizeof(when));
        printf("switchover %llu cancels scheduled switchover %llu (was due at %s)\n",
               (unsigned long long)so.id, (unsigned long long)old.id, when);
    } else {
        char dest[ZKE_SITE_MAX + 64];
        if (to)
            snprintf(dest, sizeof(dest), "%s", to);
        else if (site)
            snprintf(dest, sizeof(dest), "the best node of site %s", site);
        else
            snprintf(dest, sizeof(dest), "the best other node");
        char src[ZKE_ID_MAX + 32];
        if (from)
            snprintf(src, sizeof(src), "%s (slot %d)", from, slot);
        else
            snprintf(src, sizeof(src), "%s", *sw.from ? sw.from : "(none)");
        if (due) {
            cli_time_str(due, when, sizeof(when));
            cli_fmt_duration(due - cli_wall_ms(), left, sizeof(left));
            printf("switchover %llu scheduled for %s (in %s): %s -> %s\n",
                   (unsigned long long)so.id, when, left, src, dest);
        } else if (direct) {
            printf("switchover %llu decided: %s -> %s (the elector's recorded successor; "
                   "written directly)\n", (unsigned long long)so.id, src, direct_to);
        } else {
            printf("switchover %llu requested: %s -> %s\n", (unsigned long long)so.id, src,
                   dest);
        }
    }
    fflush(stdout);
    rc = CLI_OK;
    if (wait_s > 0) {
        /* a scheduled request: until its time, then --wait's seconds for the act */
        deadline = cli_mono_ms() + (uint64_t)wait_s * 1000;
        if (due && (now = cli_wall_ms()) < due)
            deadline += (uint64_t)(due - now);
        snprintf(what, sizeof(what), "the elector to act on switchover %llu (is a member "
                 "running?)", (unsigned long long)so.id);
        rc = out_wait_decision_slot(c, deadline, what, so_done, &sw, res, slot);
    }
    return out_json_rc(res, rc);
}
