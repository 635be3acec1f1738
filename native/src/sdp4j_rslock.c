/* One call at a time into an rsocket's state, waits excepted.
 *
 * librdmacm keeps a connection's accounting (free bytes of the send ring, free send queue entries, receive
 * credits) in plain ints guarded by halves: rsend and rrecv change them under the rsocket's slock / rlock, the
 * completion processing (rs_poll_cq, rs_update_credits: run by rpoll, and by rsend and rrecv when they must
 * wait) under its cq_lock. So a thread in rpoll and another in rsend on one rsocket update sbuf_bytes_avail at
 * once and an update is lost (rdma-core 44 up to at least 61): one way the connection stalls, the other way rsend
 * copies past its ring into the heap. Seen in the soft-RoCE VM (RsocketCloseRaceTest: a reader blocked in rpoll
 * while a writer fills an 8 KiB ring): glibc's "double free or corruption (!prev)" in rclose's free of the send
 * ring, the next chunk's header overwritten with the writer's zeros.
 *
 * So a data call (rsend, rrecv, rshutdown, options, connect, accept, rclose: sdp4j_rs_lock) has the rsocket to
 * itself, and waits (rpoll: sdp4j_rs_wait_begin/end) share it, as librdmacm's multi-threaded rpoll expects: all
 * their completion processing runs under cq_lock. A data call that finds waiters inside rpoll kicks them out
 * (each waiter's rpoll set holds an eventfd of its thread: sdp4j_poll.c) and waits until they have left;
 * they come back once no data call is pending. A wait with timeout 0 (busy polling) needs no kick: it leaves at
 * once. A waiter takes the rsockets of its set in ascending order, so waits and calls never wait in a circle:
 * a call waits only for waiters registered on its rsocket, which are in rpoll (kicked) or waiting for a higher
 * one. The states live in pages allocated on first use, kept for the life of the process (as the fd table). */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "sdp4j.h"

#define RSL_PAGE 1024

struct sdp4j_rsl {
	pthread_mutex_t m;
	pthread_cond_t c;
	int calls;    /* data calls waiting for the waiters to leave */
	int sleepers; /* threads in pthread_cond_wait on c */
	int nwait;    /* waiters registered (inside or about to enter rpoll) */
	int cap;
	int *kicks;   /* nwait entries: each waiter's kick eventfd, -1 for one that needs none */
};

static struct sdp4j_rsl *pages[SDP4J_FD_MAX / RSL_PAGE];

static struct sdp4j_rsl *rsl_of(int fd)
{
	struct sdp4j_rsl *pg, *fresh;
	int i;

	if (fd < 0 || fd >= SDP4J_FD_MAX)
		return NULL;
	pg = __atomic_load_n(&pages[fd / RSL_PAGE], __ATOMIC_ACQUIRE);
	if (pg)
		return &pg[fd % RSL_PAGE];
	fresh = calloc(RSL_PAGE, sizeof *fresh);
	if (!fresh)
		return NULL;
	for (i = 0; i < RSL_PAGE; i++) {
		pthread_mutex_init(&fresh[i].m, NULL);
		pthread_cond_init(&fresh[i].c, NULL);
	}
	if (__atomic_compare_exchange_n(&pages[fd / RSL_PAGE], &pg, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return &fresh[fd % RSL_PAGE];
	free(fresh); /* another thread's page won; never used, so nothing to destroy */
	return &pg[fd % RSL_PAGE];
}

static void sleep_on(struct sdp4j_rsl *l)
{
	l->sleepers++;
	pthread_cond_wait(&l->c, &l->m);
	l->sleepers--;
}

struct sdp4j_rsl *sdp4j_rs_lock(int fd)
{
	struct sdp4j_rsl *l = rsl_of(fd);
	uint64_t one = 1;
	int i;

	if (!l) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&l->m);
	if (l->nwait) {
		l->calls++;
		while (l->nwait) {
			for (i = 0; i < l->nwait; i++) /* EAGAIN: the counter is saturated, which is kicked enough */
				if (l->kicks[i] >= 0 && write(l->kicks[i], &one, sizeof one) < 0 && errno != EAGAIN)
					break;
			sleep_on(l);
		}
		l->calls--;
	}
	return l;
}

void sdp4j_rs_unlock(struct sdp4j_rsl *l)
{
	if (l->sleepers)
		pthread_cond_broadcast(&l->c); /* waiters held back by this call, or the next call */
	pthread_mutex_unlock(&l->m);
}

/* ---- waiters ---- */

static int is_rsocket(int fd)
{
	int st = sdp4j_fd_state(fd);

	return st != FD_NONE && (FDM(st) & FDM_RSOCKET);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static void leave(int fd, int kick)
{
	struct sdp4j_rsl *l = rsl_of(fd); /* registered: its page exists */
	int i;

	pthread_mutex_lock(&l->m);
	for (i = 0; i < l->nwait; i++)
		if (l->kicks[i] == kick) {
			l->kicks[i] = l->kicks[--l->nwait];
			break;
		}
	if (!l->nwait && l->sleepers)
		pthread_cond_broadcast(&l->c);
	pthread_mutex_unlock(&l->m);
}

void sdp4j_rs_wait_end(const int *reg, int nreg, int kick)
{
	int i;

	for (i = 0; i < nreg; i++)
		leave(reg[i], kick);
}

int sdp4j_rs_wait_begin(const struct pollfd *p, int n, int kick, int *reg)
{
	struct sdp4j_rsl *l;
	int i, k = 0, *grown;

	for (i = 0; i < n; i++)
		if (p[i].fd >= 0 && is_rsocket(p[i].fd))
			reg[k++] = p[i].fd;
	if (k > 1)
		qsort(reg, (size_t)k, sizeof *reg, cmp_int);
	for (i = 0, n = k, k = 0; i < n; i++) {
		if (k && reg[k - 1] == reg[i])
			continue; /* once per rsocket: a second registration would wait for a call waiting for the first */
		l = rsl_of(reg[i]);
		if (!l)
			goto nomem;
		pthread_mutex_lock(&l->m);
		while (l->calls)
			sleep_on(l);
		if (l->nwait == l->cap) {
			grown = realloc(l->kicks, sizeof *grown * (size_t)(l->cap ? 2 * l->cap : 4));
			if (!grown) {
				pthread_mutex_unlock(&l->m);
				goto nomem;
			}
			l->kicks = grown;
			l->cap = l->cap ? 2 * l->cap : 4;
		}
		l->kicks[l->nwait++] = kick;
		pthread_mutex_unlock(&l->m);
		reg[k++] = reg[i];
	}
	return k;
nomem:
	sdp4j_rs_wait_end(reg, k, kick);
	errno = ENOMEM;
	return -1;
}
