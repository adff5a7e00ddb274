/* qf-discovery-private.h — what the announcer (qf-announcer.c) and the browser
 * (qf-discovery-browse.c) share: the interfaces that can carry mDNS, and the sockets that talk
 * it (src/engine). Implemented in qf-discovery.c.
 */
#pragma once

#include <glib.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "qf-discovery.h"

G_BEGIN_DECLS

#define QF_MDNS_LINK_MAX_ADDRESSES 8

typedef struct
{
  int             ifindex;
  char            name[IF_NAMESIZE];
  gboolean        running;            /* IFF_RUNNING: carrier (a cable plugged in) */
  guint           n_v4, n_v6;
  struct in_addr  v4[QF_MDNS_LINK_MAX_ADDRESSES];
  struct in_addr  v4_mask[QF_MDNS_LINK_MAX_ADDRESSES];
  struct in6_addr v6[QF_MDNS_LINK_MAX_ADDRESSES];
  struct in6_addr v6_mask[QF_MDNS_LINK_MAX_ADDRESSES];
} QfMdnsLink;

/* The interfaces that are up and can multicast (loopback only when named), with their
 * addresses; only `only` when it is not NULL. A GArray of QfMdnsLink, or NULL with error. */
GArray  *_qf_mdns_links_scan       (const char              *only,
                                    GError                 **error);
/* Whether from is on the link: an IPv6 link-local address, or inside one of link's prefixes. */
gboolean _qf_mdns_link_has_source  (const QfMdnsLink        *link,
                                    const struct sockaddr   *from);

/* A UDP socket of family for mDNS: packet info on receive, hop limit 255, multicast loop on.
 * port 5353 binds with SO_REUSEADDR + SO_REUSEPORT (next to avahi-daemon); 0 an ephemeral port.
 * -1 with error. */
int      _qf_mdns_socket_open      (int                      family,
                                    guint16                  port,
                                    GError                 **error);
/* Joins (or leaves) the mDNS group of family on ifindex; FALSE (errno set) when refused. */
gboolean _qf_mdns_socket_join      (int                      fd,
                                    int                      family,
                                    int                      ifindex,
                                    gboolean                 join);
/* One datagram, without blocking: its length (-1 when none), sender, arrival interface and the
 * IPv6 hop limit / IPv4 TTL it arrived with (-1 when the system did not say). Only a packet
 * with 255 can come from the local link (RFC 6762 §11): a router decrements it. */
gssize   _qf_mdns_socket_recv      (int                      fd,
                                    guint8                  *buf,
                                    gsize                    cap,
                                    struct sockaddr_storage *from,
                                    int                     *ifindex,
                                    int                     *hop_limit);
/* Sends to the group of family out of ifindex; FALSE when the system refused. */
gboolean _qf_mdns_socket_multicast (int                      fd,
                                    int                      family,
                                    int                      ifindex,
                                    const guint8            *data,
                                    gsize                    len);
/* Sends to one address (a querier). */
gboolean _qf_mdns_socket_unicast   (int                      fd,
                                    const struct sockaddr   *to,
                                    const guint8            *data,
                                    gsize                    len);

#define QF_MDNS_LINK_HOP_LIMIT 255

/* The longest prefix of text (made valid UTF-8) of at most max_bytes that ends on a character
 * boundary. */
char    *_qf_discovery_text_cut    (const char              *text,
                                    gsize                    max_bytes);

/* "_qualify._tcp.local", "_services._dns-sd._udp.local". */
#define QF_MDNS_SERVICE_NAME  QF_DISCOVERY_SERVICE ".local"
#define QF_MDNS_ENUM_NAME     "_services._dns-sd._udp.local"

G_END_DECLS
