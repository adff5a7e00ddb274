/* qf-discovery.h — finding the helper machine with no address typed: mDNS/DNS-SD (src/engine).
 *
 * The helper announces the service "_qualify._tcp" (RFC 6763) over Multicast DNS (RFC 6762) on
 * UDP 5353, to ff02::fb and 224.0.0.251, on every interface that is up. Link-local multicast
 * needs no address from a DHCP server and no daemon on either machine, and a standard DNS-SD
 * browser (avahi-browse) sees the same announcement. The SRV record's port is the latency port;
 * the TXT record holds "v" (Qualify version), "lat" and "bw" (ports), "code" ("1" when clients
 * must prove an access token, else "0"), "name" (the machine's name, UTF-8) and "proto=1". No
 * secret is ever announced.
 *
 * QfAnnouncer answers queries for _qualify._tcp.local, _services._dns-sd._udp.local, its own
 * instance and its host name: by multicast when the query came from port 5353, straight back to
 * the querier otherwise ("legacy unicast", RFC 6762 §6.7). Only queries from the local link (a
 * source on the link, hop limit / TTL 255) are answered, through a token bucket per sender, one
 * per interface and one for all (QF_DISCOVERY_*); a malformed packet (qf-mdns.h) is dropped.
 *
 * qf_discovery_browse asks from an ephemeral port (so it works next to avahi-daemon and needs no
 * privilege) and collects the answers.
 */
#pragma once

#include <glib.h>

#include "qf-responder.h"

G_BEGIN_DECLS

#define QF_DISCOVERY_SERVICE         "_qualify._tcp"
#define QF_DISCOVERY_PROTO_VERSION   1
/* Answers a second to one sender (and burst), per interface, and for all interfaces together. */
#define QF_DISCOVERY_SOURCE_RATE     1
#define QF_DISCOVERY_SOURCE_BURST    3
#define QF_DISCOVERY_IFACE_RATE      4
#define QF_DISCOVERY_IFACE_BURST     8
#define QF_DISCOVERY_TOTAL_RATE      16
#define QF_DISCOVERY_TOTAL_BURST     32
/* How often the announcer looks for interfaces that came up (or went away). */
#define QF_DISCOVERY_RESCAN_MS       3000

typedef struct
{
  char     *instance;        /* DNS-SD instance name */
  char     *name;            /* the helper's machine name as it shows it */
  char    **addresses;       /* literals; link-local ones with "%iface" scope */
  char     *iface;           /* interface it was heard on */
  guint16   latency_port, bandwidth_port;
  gboolean  token_required;
  char     *version;
} QfHelperInfo;

void          qf_helper_info_free (QfHelperInfo *info);
QfHelperInfo *qf_helper_info_copy (const QfHelperInfo *info);
/* The address a client should use: the first that is not link-local, else the first. NULL when
 * the helper told none. */
const char   *qf_helper_info_best_address (const QfHelperInfo *info);

typedef struct
{
  const char         *name;             /* NULL: the host name */
  guint16             latency_port, bandwidth_port;
  gboolean            token_required;
  const char         *iface;            /* NULL: every interface that is up (re-scanned) */
  QfResponderLogFunc  log;
  gpointer            log_data;
} QfAnnouncerConfig;

typedef struct
{
  guint64 queries;           /* well-formed queries heard */
  guint64 answers;           /* answers sent (multicast or unicast) */
  guint64 malformed;         /* packets dropped as malformed */
  guint64 limited;           /* answers held back by the rate limit */
  guint64 off_link;          /* packets from outside the local link (source, or hop limit
                              * below 255), ignored */
} QfAnnouncerStats;

typedef struct QfAnnouncer QfAnnouncer;

/* Opens and binds the sockets (UDP 5353, SO_REUSEADDR + SO_REUSEPORT, next to avahi-daemon). */
QfAnnouncer *qf_announcer_new       (const QfAnnouncerConfig *config,
                                     GError                 **error);
/* Announces, then answers until *stop becomes nonzero (checked at least every 100 ms); says
 * goodbye (TTL 0) before it returns. Blocks its caller; log lines come on this thread. */
gboolean     qf_announcer_run       (QfAnnouncer             *a,
                                     const gint              *stop,
                                     GError                 **error);
/* Safe to call after run() returned. */
void         qf_announcer_get_stats (QfAnnouncer             *a,
                                     QfAnnouncerStats        *stats);
void         qf_announcer_free      (QfAnnouncer             *a);

/* Called on the thread of qf_discovery_browse for each helper heard or changed. */
typedef void (*QfDiscoveryFoundFunc) (const QfHelperInfo *helper,
                                      gpointer            user_data);

/* Asks on iface (NULL: every interface that is up) for duration_ms; calls found (on the
 * caller's thread, may be NULL) for each new or changed helper; returns every helper heard
 * (GPtrArray of QfHelperInfo, free func set), or NULL with error. */
GPtrArray   *qf_discovery_browse    (const char              *iface,
                                     guint                    duration_ms,
                                     const gint              *cancel,
                                     QfDiscoveryFoundFunc     found,
                                     gpointer                 user_data,
                                     GError                 **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfHelperInfo, qf_helper_info_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfAnnouncer, qf_announcer_free)

G_END_DECLS
