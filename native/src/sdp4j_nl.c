/* One netlink request and its replies, for the two readers of kernel lists: sdp4j_nldev.c (RDMA netlink: the
 * devices) and sdp4j_smc.c (generic netlink: SMC's User EIDs). */
#include <errno.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include "sdp4j.h"

int sdp4j_nl_call(int s, const struct nlmsghdr *req, size_t hdr, void (*each)(struct nlattr *, int, void *),
		  void *arg)
{
	char buf[16384] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };
	int more = req->nlmsg_flags & (NLM_F_DUMP | NLM_F_ACK);

	if (sendto(s, req, req->nlmsg_len, 0, (struct sockaddr *)&nl, sizeof nl) < 0)
		return -1;
	for (;;) {
		ssize_t n = recv(s, buf, sizeof buf, 0);
		struct nlmsghdr *h;

		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EPROTO;
			return -1;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				if (h->nlmsg_len < NLMSG_LENGTH(sizeof *e)) {
					errno = EPROTO;
					return -1;
				}
				if (e->error) {
					errno = -e->error;
					return -1;
				}
				return 0; /* the ack */
			}
			if (h->nlmsg_len >= NLMSG_LENGTH(hdr))
				each((struct nlattr *)((char *)NLMSG_DATA(h) + hdr),
				     (int)(h->nlmsg_len - NLMSG_LENGTH(hdr)), arg);
		}
		if (!more)
			return 0;
	}
}
