/*
 * lossy.c - zkelect-lossy, the CLI built for tests with zoo_amulti wrapped
 * (-Wl,--wrap=zoo_amulti): the replies of its multis can be lost, as after
 * a connection loss or an expiry, while the write itself happened or not.
 * It is how test_cli_ops checks what `zkelect switchover` does with a
 * direct write of unknown outcome. Never installed.
 *
 * ZKELECT_TEST_LOSE lists what happens to each multi in turn, comma
 * separated; multis beyond the list pass:
 *   pass    sent; its reply as the server gave it
 *   drop    never sent; the reply is ZCONNECTIONLOSS
 *   lose    sent (applied or not, as the server decides; its reply
 *           waited for and discarded); the reply given to the caller is
 *           ZCONNECTIONLOSS
 *   expire  as lose, with ZSESSIONEXPIRED
 *   late    not sent now, and the reply is ZCONNECTIONLOSS; a copy is sent
 *           just before the next multi (the session's order keeps it
 *           first): a write still in flight when a read after the loss
 *           did not see it, applied after that read
 * Any other word is an error (exit 2), so a typo does not pass silently.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zookeeper/zookeeper.h>

int __real_zoo_amulti(zhandle_t *zh, int count, const zoo_op_t *ops, zoo_op_result_t *results,
                      void_completion_t completion, const void *data);
int __wrap_zoo_amulti(zhandle_t *zh, int count, const zoo_op_t *ops, zoo_op_result_t *results,
                      void_completion_t completion, const void *data);

struct lossy {
    void_completion_t completion;
    const void *data;
    int rc;
};

/* a multi held back ("late"): its ops copied, the copy's memory in keep[] */
struct held {
    int n;
    zoo_op_t *ops;
    zoo_op_result_t *res;
    void *keep[64];
    int nkeep;
};

static void *
held_keep(struct held *h, void *p)
{
    if (p == NULL || h->nkeep == (int)(sizeof(h->keep) / sizeof(h->keep[0]))) {
        fprintf(stderr, "zkelect-lossy: cannot copy a multi\n");
        exit(2);
    }
    h->keep[h->nkeep++] = p;
    return p;
}

static const char *
held_dup(struct held *h, const char *b, int len)
{
    char *c;

    if (b == NULL)
        return NULL;
    if (len < 0)
        len = (int)strlen(b) + 1;
    c = held_keep(h, malloc(len > 0 ? (size_t)len : 1));
    memcpy(c, b, (size_t)len);
    return c;
}

static struct held *
held_copy(int n, const zoo_op_t *ops)
{
    struct held *h = calloc(1, sizeof(*h));
    struct ACL_vector *av;
    int i, j;

    if (h == NULL)
        exit(2);
    h->n = n;
    h->ops = held_keep(h, calloc((size_t)n, sizeof(*h->ops)));
    h->res = held_keep(h, calloc((size_t)n, sizeof(*h->res)));
    for (i = 0; i < n; i++) {
        h->ops[i] = ops[i];
        switch (ops[i].type) {
        case ZOO_CREATE_OP:
            h->ops[i].create_op.path = held_dup(h, ops[i].create_op.path, -1);
            h->ops[i].create_op.data = held_dup(h, ops[i].create_op.data,
                                                ops[i].create_op.datalen);
            h->ops[i].create_op.buf = held_keep(h, calloc(1, (size_t)ops[i].create_op.buflen + 1));
            if (ops[i].create_op.acl) {
                av = held_keep(h, calloc(1, sizeof(*av)));
                av->count = ops[i].create_op.acl->count;
                av->data = held_keep(h, calloc((size_t)av->count + 1, sizeof(*av->data)));
                for (j = 0; j < av->count; j++) {
                    av->data[j].perms = ops[i].create_op.acl->data[j].perms;
                    av->data[j].id.scheme =
                        (char *)held_dup(h, ops[i].create_op.acl->data[j].id.scheme, -1);
                    av->data[j].id.id = (char *)held_dup(h, ops[i].create_op.acl->data[j].id.id, -1);
                }
                h->ops[i].create_op.acl = av;
            }
            break;
        case ZOO_SETDATA_OP:
            h->ops[i].set_op.path = held_dup(h, ops[i].set_op.path, -1);
            h->ops[i].set_op.data = held_dup(h, ops[i].set_op.data, ops[i].set_op.datalen);
            h->ops[i].set_op.stat = held_keep(h, calloc(1, sizeof(struct Stat)));
            break;
        case ZOO_DELETE_OP:
            h->ops[i].delete_op.path = held_dup(h, ops[i].delete_op.path, -1);
            break;
        case ZOO_CHECK_OP:
            h->ops[i].check_op.path = held_dup(h, ops[i].check_op.path, -1);
            break;
        default:
            fprintf(stderr, "zkelect-lossy: cannot copy op type %d\n", ops[i].type);
            exit(2);
        }
    }
    return h;
}

static void
held_done(int rc, const void *data)
{
    struct held *h = (struct held *)data;
    int i;

    (void)rc;
    for (i = 0; i < h->nkeep; i++)
        free(h->keep[i]);
    free(h);
}

static struct held *lossy_held;  /* a "late" multi not sent yet */
static pthread_mutex_t lossy_mu = PTHREAD_MUTEX_INITIALIZER;
static int lossy_n; /* multis so far */

/* What ZKELECT_TEST_LOSE says of multi N (0 first): "pass" beyond it. */
static void
lossy_what(int n, char *out, size_t outlen)
{
    const char *s = getenv("ZKELECT_TEST_LOSE"), *e;
    size_t len;

    snprintf(out, outlen, "pass");
    if (s == NULL)
        return;
    while (n-- > 0) {
        if ((s = strchr(s, ',')) == NULL)
            return;
        s++;
    }
    e = strchr(s, ',');
    len = e ? (size_t)(e - s) : strlen(s);
    if (len > 0 && len < outlen) {
        memcpy(out, s, len);
        out[len] = '\0';
    }
}

static void
lossy_done(int rc, const void *data)
{
    struct lossy *l = (struct lossy *)data;

    (void)rc;
    l->completion(l->rc, l->data);
    free(l);
}

int
__wrap_zoo_amulti(zhandle_t *zh, int count, const zoo_op_t *ops, zoo_op_result_t *results,
                  void_completion_t completion, const void *data)
{
    char what[16];
    struct lossy *l;
    struct held *h;
    int rc;

    pthread_mutex_lock(&lossy_mu);
    lossy_what(lossy_n++, what, sizeof(what));
    h = lossy_held;
    lossy_held = NULL;
    pthread_mutex_unlock(&lossy_mu);
    if (strcmp(what, "pass") != 0 && strcmp(what, "drop") != 0 && strcmp(what, "lose") != 0 &&
        strcmp(what, "expire") != 0 && strcmp(what, "late") != 0) {
        fprintf(stderr, "zkelect-lossy: ZKELECT_TEST_LOSE: unknown \"%s\" (pass, drop, lose, "
                "expire or late)\n", what);
        exit(2);
    }
    if (h && __real_zoo_amulti(zh, h->n, h->ops, h->res, held_done, h) != ZOK) {
        fprintf(stderr, "zkelect-lossy: cannot send the held multi\n");
        exit(2);
    }
    if (strcmp(what, "late") == 0) {
        h = held_copy(count, ops);
        pthread_mutex_lock(&lossy_mu);
        lossy_held = h;
        pthread_mutex_unlock(&lossy_mu);
        completion(ZCONNECTIONLOSS, data);
        return ZOK;
    }
    if (strcmp(what, "drop") == 0) {
        completion(ZCONNECTIONLOSS, data);
        return ZOK;
    }
    if (strcmp(what, "lose") != 0 && strcmp(what, "expire") != 0)
        return __real_zoo_amulti(zh, count, ops, results, completion, data);
    if ((l = malloc(sizeof(*l))) == NULL)
        return ZSYSTEMERROR;
    l->completion = completion;
    l->data = data;
    l->rc = strcmp(what, "lose") == 0 ? ZCONNECTIONLOSS : ZSESSIONEXPIRED;
    if ((rc = __real_zoo_amulti(zh, count, ops, results, lossy_done, l)) != ZOK)
        free(l);
    return rc;
}
