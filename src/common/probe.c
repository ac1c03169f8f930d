/*
 * probe.c - is anybody listening at a ZooKeeper connection string?
 *
 * The ZooKeeper C client retries a refused connection forever (it cannot
 * tell "server down" from "server slow"), so a client that waits for its
 * session would wait its whole deadline for a port where nothing listens.
 * A non-blocking connect() to every address tells a refusal (RST) apart
 * within a round trip; anything else - an answer, silence, an unreachable
 * network - leaves the decision to the normal wait.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "zkecommon.h"

#define PROBE_MAX 32                  /* addresses probed at once, at most */

static uint64_t
probe_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
probe_note(char *detail, size_t detaillen, const char *host, const char *port,
           const char *what)
{
    size_t n = strlen(detail);

    if (n + 1 >= detaillen)
        return;
    snprintf(detail + n, detaillen - n, "%s%s:%s: %s", n ? "; " : "", host, port, what);
}

enum zke_probe
zke_hosts_probe(const char *hosts, int timeout_ms, char *detail, size_t detaillen)
{
    struct pollfd pfd[PROBE_MAX];
    char *list = NULL, *tok, *save, *colon, *slash;
    const char *hostp[PROBE_MAX], *portp[PROBE_MAX];
    struct addrinfo hints, *res, *ai;
    int nfd = 0, nrefused = 0, ntried = 0, i, rc, err;
    bool maybe = false;
    socklen_t len;
    uint64_t end;

    if (detail && detaillen)
        detail[0] = '\0';
    else
        detaillen = 0;
    if (hosts == NULL || (list = strdup(hosts)) == NULL)
        return ZKE_PROBE_BADHOSTS;
    if ((slash = strchr(list, '/')) != NULL)
        *slash = '\0';                /* the chroot */
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        /* host:port; an IPv6 literal without brackets, as the C client takes it */
        if ((colon = strrchr(tok, ':')) == NULL || colon == tok || colon[1] == '\0') {
            maybe = true;             /* not ours to judge: the client says */
            continue;
        }
        *colon = '\0';
        if (tok[0] == '[' && colon[-1] == ']') {
            colon[-1] = '\0';
            tok++;
        }
        if (getaddrinfo(tok, colon + 1, &hints, &res) != 0) {
            maybe = true;
            continue;
        }
        for (ai = res; ai; ai = ai->ai_next) {
            int fd;

            if (nfd == PROBE_MAX) {
                maybe = true;
                break;
            }
            ntried++;
            fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                        ai->ai_protocol);
            if (fd == -1) {
                maybe = true;
                continue;
            }
            if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
                maybe = true;         /* somebody listens */
                close(fd);
            } else if (errno == ECONNREFUSED) {
                nrefused++;
                probe_note(detail, detaillen, tok, colon + 1, strerror(ECONNREFUSED));
                close(fd);
            } else if (errno == EINPROGRESS) {
                pfd[nfd].fd = fd;
                pfd[nfd].events = POLLOUT;
                pfd[nfd].revents = 0;
                hostp[nfd] = tok;
                portp[nfd] = colon + 1;
                nfd++;
            } else {
                maybe = true;         /* unreachable: may come back; not a refusal */
                close(fd);
            }
        }
        freeaddrinfo(res);
    }
    end = probe_now_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
    while (!maybe && nfd > 0) {
        uint64_t now = probe_now_ms();
        int left = 0;

        if (now >= end) {
            maybe = true;             /* silence: slow, not refused */
            break;
        }
        rc = poll(pfd, (nfds_t)nfd, (int)(end - now));
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc <= 0) {
            maybe = true;
            break;
        }
        for (i = 0; i < nfd; i++) {
            if (pfd[i].fd < 0 || pfd[i].revents == 0)
                continue;
            err = 0;
            len = sizeof(err);
            if (getsockopt(pfd[i].fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
                err = errno;
            if (err == ECONNREFUSED) {
                nrefused++;
                probe_note(detail, detaillen, hostp[i], portp[i], strerror(err));
            } else {
                maybe = true;         /* connected, or some other answer */
            }
            close(pfd[i].fd);
            pfd[i].fd = -1;
        }
        for (i = 0; i < nfd; i++)
            if (pfd[i].fd >= 0)
                pfd[left++] = pfd[i], hostp[left - 1] = hostp[i], portp[left - 1] = portp[i];
        nfd = left;
    }
    for (i = 0; i < nfd; i++)
        if (pfd[i].fd >= 0)
            close(pfd[i].fd);
    free(list);
    if (!maybe && ntried > 0 && nrefused == ntried)
        return ZKE_PROBE_REFUSED;
    return ZKE_PROBE_UNKNOWN;
}
