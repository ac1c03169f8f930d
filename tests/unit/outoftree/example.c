/*
 * oldest.c - a minimal zkelect policy: the oldest member leads.
 *
 * The member with the lowest election sequence that can lead wins (the
 * plain ZooKeeper recipe); a current leader that is still a live member
 * and can lead keeps leadership. It takes no options.
 *
 *   cc -shared -fPIC $(pkg-config --cflags libzkelect) -o oldest.so oldest.c
 */
#include <stdio.h>
#include <string.h>

#include <zkelect/policy.h>

static int
oldest_init(void **state, const struct zkelect_option *options, size_t noptions,
            char *err, size_t errlen)
{
    if (noptions > 0) {
        snprintf(err, errlen, "oldest: unknown option '%s'", options[0].key);
        return -1;
    }
    *state = NULL;              /* stateless */
    return 0;
}

static void
oldest_fini(void *state)
{
    (void)state;
}

/* Non-zero when member a is older than b (ties, which a host never passes, by id). */
static int
oldest_before(const struct zkelect_member *a, const struct zkelect_member *b)
{
    if (a->seq != b->seq)
        return a->seq < b->seq;
    return zkelect_id_compare(a->id, b->id) < 0;
}

static int
oldest_choose(void *state, const struct zkelect_policy_input *in,
              struct zkelect_policy_output *out)
{
    const char *skip = NULL;    /* never choose this id */
    size_t i;

    (void)state;
    if (in->reasons & ZKELECT_REASON_SWITCHOVER) {
        if (in->switchover_target == NULL) {
            skip = in->current_leader;      /* "any other node" */
        } else {
            for (i = 0; i < in->nmembers; i++)
                if (strcmp(in->members[i].id, in->switchover_target) == 0 &&
                    zkelect_member_can_lead(&in->members[i]))
                    out->chosen = (int)i;
            snprintf(out->reason, sizeof(out->reason), "switchover to %s%s",
                     in->switchover_target, out->chosen < 0 ? " refused" : "");
            return 0;
        }
    } else if (in->current_leader != NULL && in->current_present) {
        for (i = 0; i < in->nmembers; i++) {
            if (strcmp(in->members[i].id, in->current_leader) == 0 &&
                zkelect_member_can_lead(&in->members[i])) {
                out->chosen = (int)i;
                snprintf(out->reason, sizeof(out->reason), "leader %s kept",
                         in->current_leader);
                return 0;
            }
        }
    }
    for (i = 0; i < in->nmembers; i++) {
        const struct zkelect_member *m = &in->members[i];

        if (!zkelect_member_can_lead(m) || (skip != NULL && strcmp(m->id, skip) == 0))
            continue;
        if (out->chosen < 0 || oldest_before(m, &in->members[out->chosen]))
            out->chosen = (int)i;
    }
    if (out->chosen < 0)
        snprintf(out->reason, sizeof(out->reason), "no member can lead");
    else
        snprintf(out->reason, sizeof(out->reason), "oldest member %s",
                 in->members[out->chosen].id);
    return 0;
}

static const struct zkelect_policy oldest_policy = {
    .abi_major = ZKELECT_POLICY_ABI_MAJOR,
    .abi_minor = ZKELECT_POLICY_ABI_MINOR,
    .size = sizeof(struct zkelect_policy),
    .name = "oldest",
    .init = oldest_init,
    .fini = oldest_fini,
    .choose = oldest_choose,
};

ZKELECT_POLICY_EXPORT const struct zkelect_policy *zkelect_policy_entry(void);

ZKELECT_POLICY_EXPORT const struct zkelect_policy *
zkelect_policy_entry(void)
{
    return &oldest_policy;
}
