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
 *   lose    sent and applied (its reply waited for); the reply given to
 *           the caller is ZCONNECTIONLOSS
 *   expire  as lose, with ZSESSIONEXPIRED
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
    int rc;

    pthread_mutex_lock(&lossy_mu);
    lossy_what(lossy_n++, what, sizeof(what));
    pthread_mutex_unlock(&lossy_mu);
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
