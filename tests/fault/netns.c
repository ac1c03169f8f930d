/*
 * netns.c - one network namespace per node, so that any node (the leader
 * too) can be cut off from ZooKeeper by taking its link down.
 *
 * Node i lives in namespace zkfault-<pid>-n<i+1>, joined to the root
 * namespace by a veth pair: the host side zkf<pid>h<i> has 10.77.K.(4i+1)/30,
 * the namespace side zkf<pid>c<i> has 10.77.K.(4i+2)/30 and a default route
 * via the host side. The ZooKeeper ensemble listens on the host side address
 * of node 0's pair (the "hub" address); every node reaches it through its
 * own pair (the host delivers it locally), the harness and the CLI from the
 * root namespace. A partition of node i is "ip link set zkf<pid>h<i> down":
 * its packets go nowhere, while the hub address stays reachable for
 * everybody else (a local address stays local when its link is down).
 * K is picked so that no address of the root namespace is in 10.77.K.0/24.
 *
 * Everything is made with ip(8) and removed at the end; namespaces left by
 * a harness that was killed are removed by the next run (netns_clean_stale).
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault.h"

extern char **environ;

static const char *netns_ip_paths[] = { "/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip" };

static const char *
netns_ip_bin(void)
{
    size_t i;

    for (i = 0; i < sizeof netns_ip_paths / sizeof netns_ip_paths[0]; i++)
        if (access(netns_ip_paths[i], X_OK) == 0)
            return netns_ip_paths[i];
    return NULL;
}

/*
 * Run ip with the arguments (NULL-terminated). Returns its exit status
 * (0 success), -1 when it could not run; its stderr (the first line) goes
 * to why.
 */
static int
netns_ip(char *why, size_t whylen, const char *a0, ...)
{
    const char *argv[24], *bin;
    posix_spawn_file_actions_t fa;
    char buf[512];
    va_list ap;
    pid_t pid;
    ssize_t n;
    size_t len = 0;
    int p[2], st, argc = 0, rc;

    if ((bin = netns_ip_bin()) == NULL) {
        snprintf(why, whylen, "ip(8) not found (Debian package iproute2)");
        return -1;
    }
    argv[argc++] = bin;
    argv[argc++] = a0;
    va_start(ap, a0);
    while (argc < 23 && (argv[argc] = va_arg(ap, const char *)) != NULL)
        argc++;
    va_end(ap);
    argv[argc] = NULL;
    if (pipe2(p, O_CLOEXEC) == -1) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        return -1;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, p[1], 2);
    rc = posix_spawn(&pid, bin, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(p[1]);
    if (rc != 0) {
        close(p[0]);
        snprintf(why, whylen, "cannot run %s: %s", bin, strerror(rc));
        return -1;
    }
    while ((n = read(p[0], buf + len, sizeof buf - 1 - len)) > 0 || (n == -1 && errno == EINTR))
        if (n > 0)
            len += (size_t)n;
    close(p[0]);
    buf[len] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    while (waitpid(pid, &st, 0) == -1)
        if (errno != EINTR)
            return -1;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    snprintf(why, whylen, "ip %s %s ... failed: %s", a0, argc > 2 ? argv[2] : "",
        buf[0] != '\0' ? buf : "(no message)");
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* A subnet 10.77.K.0/24 that no address of the root namespace is in. */
static int
netns_pick_subnet(void)
{
    struct ifaddrs *ifa, *p;
    int used[256] = { 0 }, k, start;
    uint32_t a;

    if (getifaddrs(&ifa) == 0) {
        for (p = ifa; p != NULL; p = p->ifa_next) {
            if (p->ifa_addr == NULL || p->ifa_addr->sa_family != AF_INET)
                continue;
            a = ntohl(((struct sockaddr_in *)(void *)p->ifa_addr)->sin_addr.s_addr);
            if ((a >> 16) == ((10u << 8) | 77u))
                used[(a >> 8) & 0xff] = 1;
        }
        freeifaddrs(ifa);
    }
    start = (int)(getpid() % 250) + 1;
    for (k = 0; k < 250; k++) {
        int s = (start - 1 + k) % 250 + 1;
        if (!used[s])
            return s;
    }
    return -1;
}

static void
netns_names(struct fnode *n, long pid, int subnet)
{
    snprintf(n->ns, sizeof n->ns, "zkfault-%ld-n%d", pid, n->idx + 1);
    snprintf(n->host_if, sizeof n->host_if, "zkf%ldh%d", pid, n->idx);
    snprintf(n->host_addr, sizeof n->host_addr, "10.77.%d.%d", subnet, 4 * n->idx + 1);
    snprintf(n->ns_addr, sizeof n->ns_addr, "10.77.%d.%d", subnet, 4 * n->idx + 2);
}

/*
 * Create the namespaces and links. 0, or -1 with f->netns_why set (and
 * whatever was made removed): the run then goes on without partitions.
 * -2 when running as root but ip(8) is missing: a missing tool, not a
 * missing privilege, so the caller fails rather than skips.
 */
int
netns_setup(struct fault *f)
{
    char peer[16], haddr[24], naddr[24], why[384];
    long pid = (long)getpid();
    int i;

    f->netns = 0;
    if (geteuid() != 0) {
        snprintf(f->netns_why, sizeof f->netns_why, "not root (network namespaces need "
            "CAP_SYS_ADMIN and CAP_NET_ADMIN)");
        return -1;
    }
    if (netns_ip_bin() == NULL) {
        snprintf(f->netns_why, sizeof f->netns_why, "ip(8) not found (Debian package iproute2)");
        return -2;
    }
    if ((f->subnet = netns_pick_subnet()) < 0) {
        snprintf(f->netns_why, sizeof f->netns_why, "no free subnet in 10.77.0.0/16");
        return -1;
    }
    for (i = 0; i < f->nnodes; i++) {
        struct fnode *n = &f->nodes[i];

        netns_names(n, pid, f->subnet);
        snprintf(peer, sizeof peer, "zkf%ldc%d", pid, i);
        snprintf(haddr, sizeof haddr, "%s/30", n->host_addr);
        snprintf(naddr, sizeof naddr, "%s/30", n->ns_addr);
        if (netns_ip(why, sizeof why, "netns", "add", n->ns, NULL) != 0) {
            n->ns[0] = '\0';
            goto fail;
        }
        if (netns_ip(why, sizeof why, "link", "add", n->host_if, "type", "veth", "peer",
                "name", peer, "netns", n->ns, NULL) != 0
            || netns_ip(why, sizeof why, "addr", "add", haddr, "dev", n->host_if, NULL) != 0
            || netns_ip(why, sizeof why, "link", "set", n->host_if, "up", NULL) != 0
            || netns_ip(why, sizeof why, "-n", n->ns, "link", "set", "lo", "up", NULL) != 0
            || netns_ip(why, sizeof why, "-n", n->ns, "addr", "add", naddr, "dev", peer,
                NULL) != 0
            || netns_ip(why, sizeof why, "-n", n->ns, "link", "set", peer, "up", NULL) != 0
            || netns_ip(why, sizeof why, "-n", n->ns, "route", "add", "default", "via",
                n->host_addr, NULL) != 0)
            goto fail;
    }
    f->netns = 1;
    return 0;
fail:
    snprintf(f->netns_why, sizeof f->netns_why, "%s", why);
    netns_teardown(f);
    return -1;
}

/* Remove every namespace and link made by netns_setup(). Idempotent. */
void
netns_teardown(struct fault *f)
{
    char why[384];
    int i;

    for (i = 0; i < f->nnodes; i++) {
        struct fnode *n = &f->nodes[i];

        if (n->ns[0] == '\0')
            continue;
        netns_ip(why, sizeof why, "link", "del", n->host_if, NULL);
        netns_ip(why, sizeof why, "netns", "del", n->ns, NULL);
        n->ns[0] = '\0';
    }
    f->netns = 0;
}

/* Take node i's link down (up = 0) or up. 0 or -1 (message printed). */
int
netns_link(struct fault *f, int i, int up)
{
    char why[384];

    if (netns_ip(why, sizeof why, "link", "set", f->nodes[i].host_if, up ? "up" : "down",
            NULL) != 0) {
        fault_log(f, "cannot take %s's link %s: %s", f->nodes[i].id, up ? "up" : "down", why);
        return -1;
    }
    return 0;
}

/*
 * Move the calling thread (or a forked child) into node n's namespace.
 * Only system calls: safe between fork and exec. 0 or -1.
 */
int
netns_enter(const struct fnode *n)
{
    char path[80];
    int fd, rc;

    if (n->ns[0] == '\0')
        return 0;
    snprintf(path, sizeof path, "/run/netns/%s", n->ns);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
        return -1;
    rc = setns(fd, CLONE_NEWNET);
    close(fd);
    return rc;
}

/* Remove namespaces (and their host links) of harness runs that are gone. */
void
netns_clean_stale(void)
{
    char why[384], ifname[32];
    struct dirent *e;
    DIR *d;
    long pid;
    int idx;

    if (geteuid() != 0 || (d = opendir("/run/netns")) == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        if (sscanf(e->d_name, "zkfault-%ld-n%d", &pid, &idx) != 2 || pid <= 0)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno == EPERM)
            continue;
        snprintf(ifname, sizeof ifname, "zkf%ldh%d", pid, idx - 1);
        netns_ip(why, sizeof why, "link", "del", ifname, NULL);
        netns_ip(why, sizeof why, "netns", "del", e->d_name, NULL);
    }
    closedir(d);
}
