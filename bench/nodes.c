/*
 * nodes.c - the bench's nodes and the event log they share.
 *
 * A node is either an in-process libzkelect handle with one group (its own
 * ZooKeeper session, its own library thread), or a child process running
 * zkbench-node (bench/node.c), which prints every event as a line
 *     EV <mono_us> <mono_ms> <name> <node|-> <epoch> <status>
 * that a reader thread here appends to the same log. CLOCK_MONOTONIC is one
 * clock for every process of the machine, so the times compare directly.
 *
 * Locking: evlog.mu guards the log and every node's event-derived state
 * (ready, elector, registered). Event callbacks run on libzkelect's library
 * threads (with the handle's lock held) and on the reader threads; they only
 * append and signal. Nothing here calls into libzkelect with evlog.mu held.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define NODE_SLOTS (BENCH_MAXNODES * 2)

static struct {
    pthread_mutex_t mu;             /* guards everything below and node state */
    pthread_cond_t cv;              /* broadcast on every append */
    struct bev *v;                  /* events, in arrival order */
    size_t n, cap;
} evlog = { .mu = PTHREAD_MUTEX_INITIALIZER };

static struct bnode nodes[NODE_SLOTS];

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_f;                 /* -L: library debug log, or NULL */

/* ---- the library debug log (-L) ------------------------------------------ */

void
bench_log(uint64_t us, const char *id, int level, const char *msg)
{
    if (log_f == NULL)
        return;
    pthread_mutex_lock(&log_mu);
    fprintf(log_f, "%llu.%06llu %-4s <%d> %s\n", (unsigned long long)(us / 1000000u),
        (unsigned long long)(us % 1000000u), id, level, msg);
    fflush(log_f);
    pthread_mutex_unlock(&log_mu);
}

static void
node_log(void *data, int level, const char *msg)
{
    struct bnode *n = data;

    bench_log(now_us(), n->id, level, msg);
}

/* ---- the event log ------------------------------------------------------- */

void
nodes_init(void)
{
    int i;

    cond_init_mono(&evlog.cv);
    for (i = 0; i < NODE_SLOTS; i++) {
        nodes[i].idx = i;
        nodes[i].pid = -1;
        nodes[i].in_fd = nodes[i].out_fd = -1;
    }
    if (bopt.logfile) {
        log_f = fopen(bopt.logfile, "w");
        if (log_f == NULL)
            warnx_("-L %s: %s; no library log is written", bopt.logfile, strerror(errno));
        else
            trace_enable();
    }
}

/* Update the node's state from an event; evlog.mu held. */
static void
state_update(struct bnode *n, const struct bev *b)
{
    switch (b->type) {
    case ZKELECT_EV_READY:
    case ZKELECT_EV_RESUMED:
        n->ready = true;
        n->ready_epoch = b->epoch;
        break;
    case ZKELECT_EV_STEPDOWN:
    case ZKELECT_EV_LOST:
    case ZKELECT_EV_SUSPENDED:
    case ZKELECT_EV_TAKEOVER_ABORT:
        n->ready = false;
        break;
    case ZKELECT_EV_EXPIRED:
        n->ready = n->elector = false;
        break;
    case ZKELECT_EV_ELECTOR:
        n->elector = true;
        break;
    case ZKELECT_EV_ELECTOR_LOST:
        n->elector = false;
        break;
    case ZKELECT_EV_REGISTERED:
        n->registered = true;
        break;
    case ZKELECT_EV_UNREGISTERED:
        n->registered = n->ready = n->elector = false;
        break;
    default:
        break;
    }
}

static void
evlog_push(const struct bev *b)
{
    pthread_mutex_lock(&evlog.mu);
    if (evlog.n == evlog.cap) {
        size_t cap = evlog.cap ? evlog.cap * 2 : 4096;
        struct bev *v = realloc(evlog.v, cap * sizeof(*v));
        if (v == NULL) {
            pthread_mutex_unlock(&evlog.mu);
            fprintf(stderr, "zkbench: out of memory\n");
            abort();
        }
        evlog.v = v;
        evlog.cap = cap;
    }
    evlog.v[evlog.n++] = *b;
    if (b->who >= 0 && b->who < NODE_SLOTS)
        state_update(&nodes[b->who], b);
    pthread_cond_broadcast(&evlog.cv);
    pthread_mutex_unlock(&evlog.mu);
}

size_t
evlog_mark(void)
{
    size_t n;

    pthread_mutex_lock(&evlog.mu);
    n = evlog.n;
    pthread_mutex_unlock(&evlog.mu);
    return n;
}

static bool
ev_match(const struct bev *b, int type, int who, int not_who, uint64_t min_epoch)
{
    return b->type == type && (who < 0 || b->who == who) && (not_who < 0 || b->who != not_who) &&
        b->epoch >= min_epoch;
}

int
evlog_wait(size_t from, int type, int who, int not_who, uint64_t min_epoch, int timeout_ms,
    struct bev *out, size_t *idx)
{
    struct timespec ts;
    size_t i = from;
    int rc = -1;

    ts = mono_at(now_us() + (uint64_t)timeout_ms * 1000u);
    pthread_mutex_lock(&evlog.mu);
    for (;;) {
        for (; i < evlog.n; i++) {
            if (ev_match(&evlog.v[i], type, who, not_who, min_epoch)) {
                if (out)
                    *out = evlog.v[i];
                if (idx)
                    *idx = i;
                rc = 0;
                goto out;
            }
        }
        if (pthread_cond_timedwait(&evlog.cv, &evlog.mu, &ts) == ETIMEDOUT) {
            for (; i < evlog.n; i++)
                if (ev_match(&evlog.v[i], type, who, not_who, min_epoch))
                    break;
            if (i < evlog.n) {
                if (out)
                    *out = evlog.v[i];
                if (idx)
                    *idx = i;
                rc = 0;
            }
            goto out;
        }
    }
out:
    pthread_mutex_unlock(&evlog.mu);
    return rc;
}

int
evlog_find(size_t from, size_t to, int type, int who, bool last, struct bev *out)
{
    size_t i;
    int rc = -1;

    pthread_mutex_lock(&evlog.mu);
    if (to > evlog.n)
        to = evlog.n;
    for (i = from; i < to; i++) {
        if (ev_match(&evlog.v[i], type, who, -1, 0)) {
            *out = evlog.v[i];
            rc = 0;
            if (!last)
                break;
        }
    }
    pthread_mutex_unlock(&evlog.mu);
    return rc;
}

int
evlog_count(size_t from, size_t to, int type)
{
    size_t i;
    int c = 0;

    pthread_mutex_lock(&evlog.mu);
    if (to > evlog.n)
        to = evlog.n;
    for (i = from; i < to; i++)
        if (evlog.v[i].type == type)
            c++;
    pthread_mutex_unlock(&evlog.mu);
    return c;
}

void
node_state(struct bnode *n, bool *ready, bool *elector, uint64_t *ready_epoch)
{
    pthread_mutex_lock(&evlog.mu);
    if (ready)
        *ready = n->ready;
    if (elector)
        *elector = n->elector;
    if (ready_epoch)
        *ready_epoch = n->ready_epoch;
    pthread_mutex_unlock(&evlog.mu);
}

struct bnode *
node_ready_leader(void)
{
    struct bnode *r = NULL;
    int i;

    pthread_mutex_lock(&evlog.mu);
    for (i = 0; i < NODE_SLOTS && r == NULL; i++)
        if (nodes[i].used && nodes[i].ready)
            r = &nodes[i];
    pthread_mutex_unlock(&evlog.mu);
    return r;
}

struct bnode *
node_wait_leader(int timeout_ms)
{
    uint64_t until = now_us() + (uint64_t)timeout_ms * 1000u, now;
    struct bnode *l;
    size_t mark;

    for (;;) {
        mark = evlog_mark();
        if ((l = node_ready_leader()) != NULL)
            return l;
        if ((now = now_us()) >= until)
            return NULL;
        evlog_wait(mark, ZKELECT_EV_READY, -1, -1, 0, (int)((until - now) / 1000) + 1, NULL,
            NULL);
    }
}

int
node_clientid(struct bnode *n, clientid_t *out)
{
    int rc = -1;

    pthread_mutex_lock(&evlog.mu);
    if (n->has_cid) {
        *out = n->cid;
        rc = 0;
    }
    pthread_mutex_unlock(&evlog.mu);
    return rc;
}

struct bnode *
node_at(int idx)
{
    return idx >= 0 && idx < NODE_SLOTS && nodes[idx].used ? &nodes[idx] : NULL;
}

/* ---- in-process nodes ---------------------------------------------------- */

static void
node_event(void *data, const struct zkelect_event *ev)
{
    struct bnode *n = data;
    struct bev b;

    memset(&b, 0, sizeof(b));
    b.us = now_us();
    b.ms = ev->mono_ms;
    b.type = ev->type;
    b.who = n->idx;
    b.epoch = ev->epoch;
    b.status = ev->status;
    snprintf(b.subject, sizeof(b.subject), "%s", ev->node ? ev->node : "");
    evlog_push(&b);
}

static struct bnode *
slot_new(const char *id)
{
    int i;

    pthread_mutex_lock(&evlog.mu);
    for (i = 0; i < NODE_SLOTS; i++) {
        if (!nodes[i].used) {
            struct bnode *n = &nodes[i];
            memset(n, 0, sizeof(*n));
            n->idx = i;
            n->used = true;
            n->pid = -1;
            n->in_fd = n->out_fd = -1;
            snprintf(n->id, sizeof(n->id), "%s", id);
            pthread_mutex_unlock(&evlog.mu);
            return n;
        }
    }
    pthread_mutex_unlock(&evlog.mu);
    fprintf(stderr, "zkbench: more than %d nodes at once\n", NODE_SLOTS);
    return NULL;
}

static void
slot_free(struct bnode *n)
{
    pthread_mutex_lock(&evlog.mu);
    n->used = false;
    n->ready = n->elector = n->registered = false;
    pthread_mutex_unlock(&evlog.mu);
}

struct bnode *
node_open(const struct bgroup *bg, const char *id, int eligible)
{
    return node_open_ex(bg, id, eligible, NODE_EVENTS_ALL);
}

struct bnode *
node_open_ex(const struct bgroup *bg, const char *id, int eligible, enum node_events events)
{
    struct zkelect_options o;
    struct zkelect_group_options go;
    const char *popts[1];
    struct bnode *n;
    int rc;

    if ((n = slot_new(id)) == NULL)
        return NULL;
    memset(&o, 0, sizeof(o));
    o.size = sizeof(o);
    o.hosts = bg->hosts;
    o.session_timeout_ms = bg->session_ms;
    o.connect_timeout_ms = BENCH_WAIT_MS;
    if (log_f) {
        o.log = node_log;
        o.log_data = n;
        o.log_level = ZKELECT_LOG_DEBUG;
    }
    trace_opening(id);          /* -L: the handle's requests are traced as this node's */
    rc = zkelect_open(&o, &n->h);
    trace_opening(NULL);
    if (rc != 0) {
        fprintf(stderr, "zkbench: node %s: zkelect_open(%s): %s\n", id, bg->hosts,
            zkelect_strerror(rc));
        slot_free(n);
        return NULL;
    }
    memset(&go, 0, sizeof(go));
    go.size = sizeof(go);
    go.path = bg->path;
    go.policy = bg->policy;
    go.policy_path = bopt.policy_dir;
    if (bg->policy_opt) {
        popts[0] = bg->policy_opt;
        go.policy_options = popts;
        go.npolicy_options = 1;
    }
    if (events == NODE_EVENTS_ALL) {
        go.on_event = node_event;
        go.event_data = n;
    }
    go.flags = bg->flags;
    rc = zkelect_group_open(n->h, &go, &n->g);
    if (rc != 0) {
        fprintf(stderr, "zkbench: node %s: zkelect_group_open(%s): %s\n", id, bg->path,
            zkelect_strerror(rc));
        zkelect_close(n->h);
        slot_free(n);
        return NULL;
    }
    if (events == NODE_EVENTS_LEADER &&
        (rc = zkelect_subscribe(n->g, ZKELECT_MASK_LEADER, node_event, n)) < 0) {
        fprintf(stderr, "zkbench: node %s: zkelect_subscribe(+leader-changed): %s\n", id,
            zkelect_strerror(rc));
        zkelect_close(n->h);
        slot_free(n);
        return NULL;
    }
    n->self.id = n->id;
    n->self.site = "";
    n->self.priority = 0;
    n->self.eligible = eligible;
    n->self.host = "zkbench";
    return n;
}

int
node_nominate(struct bnode *n)
{
    int rc = zkelect_nominate(n->g, &n->self, BENCH_WAIT_MS);

    if (rc != 0) {
        fprintf(stderr, "zkbench: node %s: zkelect_nominate: %s\n", n->id, zkelect_strerror(rc));
        return -1;
    }
    return 0;
}

int
node_unnominate(struct bnode *n)
{
    int rc = zkelect_unnominate(n->g, BENCH_WAIT_MS);

    if (rc != 0) {
        fprintf(stderr, "zkbench: node %s: zkelect_unnominate: %s\n", n->id,
            zkelect_strerror(rc));
        return -1;
    }
    return 0;
}

void
node_close(struct bnode *n)
{
    if (n == NULL || !n->used)
        return;
    if (n->child) {
        node_stop(n, 10000);
        return;
    }
    zkelect_close(n->h); /* resigns and closes the group too */
    n->g = NULL;
    n->h = NULL;
    slot_free(n);
}

/* ---- child process nodes ------------------------------------------------- */

static int
event_type_of(const char *name)
{
    int t;

    for (t = 1; t < ZKELECT_EV__COUNT; t++)
        if (strcmp(zkelect_event_name((enum zkelect_event_type)t), name) == 0)
            return t;
    return -1;
}

static void *
reader_main(void *arg)
{
    struct bnode *n = arg;
    FILE *f = fdopen(n->out_fd, "r");
    char *line = NULL, name[64], subject[BENCH_IDLEN + 8], pw[40];
    size_t cap = 0;
    unsigned long long us, ms, epoch;
    int status, level, off, k;
    struct bev b;

    if (f == NULL) {
        warnx_("node %s: fdopen: %s", n->id, strerror(errno));
        return NULL;
    }
    while (getline(&line, &cap, f) > 0) {
        line[strcspn(line, "\n")] = '\0';
        if (sscanf(line, "EV %llu %llu %63s %39s %llu %d", &us, &ms, name, subject, &epoch,
                &status) == 6) {
            memset(&b, 0, sizeof(b));
            b.us = us;
            b.ms = ms;
            b.type = event_type_of(name);
            b.who = n->idx;
            b.epoch = epoch;
            b.status = status;
            snprintf(b.subject, sizeof(b.subject), "%s", strcmp(subject, "-") ? subject : "");
            if (b.type > 0)
                evlog_push(&b);
            else
                warnx_("node %s: unknown event name '%s'", n->id, name);
        } else if (sscanf(line, "LOG %llu %d %n", &us, &level, &off) == 2) {
            bench_log(us, n->id, level, line + off);
        } else if (sscanf(line, "SESSION %llx %32s", &us, pw) == 2 && strlen(pw) == 32) {
            clientid_t cid;
            memset(&cid, 0, sizeof(cid));
            cid.client_id = (int64_t)us;
            for (k = 0; k < 16; k++) {
                char hex[3] = {pw[2 * k], pw[2 * k + 1], '\0'};
                cid.passwd[k] = (char)strtol(hex, NULL, 16);
            }
            pthread_mutex_lock(&evlog.mu);
            n->cid = cid;
            n->has_cid = true;
            pthread_mutex_unlock(&evlog.mu);
        } else {
            warnx_("node %s: unexpected line from the node program: %.200s", n->id, line);
        }
    }
    free(line);
    fclose(f); /* closes out_fd */
    return NULL;
}

struct bnode *
node_spawn(const struct bgroup *bg, const char *id, int eligible)
{
    char tbuf[16];
    const char *argv[24];
    int in[2], out[2], k = 0;
    pid_t parent = getpid(), pid;
    struct bnode *n;

    if ((n = slot_new(id)) == NULL)
        return NULL;
    snprintf(tbuf, sizeof(tbuf), "%d", bg->session_ms);
    argv[k++] = bopt.node_prog;
    argv[k++] = "-h";
    argv[k++] = bg->hosts;
    argv[k++] = "-p";
    argv[k++] = bg->path;
    argv[k++] = "-i";
    argv[k++] = id;
    argv[k++] = "-t";
    argv[k++] = tbuf;
    argv[k++] = "-P";
    argv[k++] = bg->policy;
    if (bg->policy_opt) {
        argv[k++] = "-o";
        argv[k++] = bg->policy_opt;
    }
    if (bopt.policy_dir) {
        argv[k++] = "-D";
        argv[k++] = bopt.policy_dir;
    }
    if (!eligible)
        argv[k++] = "-I";
    if (log_f)
        argv[k++] = "-l";
    argv[k] = NULL;

    if (pipe2(in, O_CLOEXEC) == -1) {
        fprintf(stderr, "zkbench: pipe: %s\n", strerror(errno));
        slot_free(n);
        return NULL;
    }
    if (pipe2(out, O_CLOEXEC) == -1) {
        fprintf(stderr, "zkbench: pipe: %s\n", strerror(errno));
        close(in[0]);
        close(in[1]);
        slot_free(n);
        return NULL;
    }
    pid = fork();
    if (pid == -1) {
        fprintf(stderr, "zkbench: fork: %s\n", strerror(errno));
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        slot_free(n);
        return NULL;
    }
    if (pid == 0) {
        /* only async-signal-safe calls until exec: the parent has threads */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        if (dup2(in[0], 0) == -1 || dup2(out[1], 1) == -1)
            _exit(127);
        close_range(3, ~0U, 0);
        execv(argv[0], (char *const *)argv);
        {
            static const char msg[] = "zkbench: cannot execute the node program (-N)\n";
            ssize_t w = write(2, msg, sizeof(msg) - 1);
            (void)w;
        }
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    n->child = true;
    n->pid = pid;
    n->in_fd = in[1];
    n->out_fd = out[0];
    if (pthread_create(&n->reader, NULL, reader_main, n) != 0) {
        fprintf(stderr, "zkbench: cannot start a reader thread\n");
        node_kill(n);
        close(n->out_fd);
        n->out_fd = -1;
        slot_free(n);
        return NULL;
    }
    n->reader_on = true;
    return n;
}

static void
child_reaped(struct bnode *n)
{
    if (n->reader_on) {
        pthread_join(n->reader, NULL); /* EOF: the child is gone */
        n->reader_on = false;
    }
    n->out_fd = -1;
    if (n->in_fd >= 0)
        close(n->in_fd);
    n->in_fd = -1;
    n->pid = -1;
}

uint64_t
node_kill(struct bnode *n)
{
    uint64_t t;
    int st;

    if (n->pid <= 0)
        return 0;
    t = now_us();
    kill(n->pid, SIGKILL);
    while (waitpid(n->pid, &st, 0) == -1 && errno == EINTR)
        ;
    pthread_mutex_lock(&evlog.mu);
    n->ready = n->elector = n->registered = false;
    pthread_mutex_unlock(&evlog.mu);
    child_reaped(n);
    return t;
}

void
node_stop(struct bnode *n, int timeout_ms)
{
    uint64_t until = now_us() + (uint64_t)timeout_ms * 1000u;
    int st;
    pid_t r;

    if (n == NULL || !n->used)
        return;
    if (n->pid > 0) {
        close(n->in_fd); /* EOF on its stdin: it resigns and exits */
        n->in_fd = -1;
        for (;;) {
            r = waitpid(n->pid, &st, WNOHANG);
            if (r == n->pid || (r == -1 && errno != EINTR))
                break;
            if (now_us() >= until) {
                warnx_("node %s (pid %d) did not exit within %d ms; killing it", n->id,
                    (int)n->pid, timeout_ms);
                kill(n->pid, SIGKILL);
                while (waitpid(n->pid, &st, 0) == -1 && errno == EINTR)
                    ;
                break;
            }
            pace_ms(10); /* polling a child's exit, with a deadline */
        }
        child_reaped(n);
    }
    slot_free(n);
}

void
nodes_close_all(void)
{
    int i;

    for (i = 0; i < NODE_SLOTS; i++)
        if (nodes[i].used && nodes[i].child)
            node_kill(&nodes[i]);
    for (i = 0; i < NODE_SLOTS; i++)
        if (nodes[i].used)
            node_close(&nodes[i]);
    trace_free();
    if (log_f) {
        fclose(log_f);
        log_f = NULL;
    }
}
