/* qf-peer-services.h — the services a helper machine offers, each on its own thread (src/core):
 * the latency responder (sockperf-style ping-pong on TCP and UDP, and the cycle protocol;
 * qf-responder) and the bandwidth server (iperf3 3.12-compatible; qf-iperf3), and, when asked,
 * the discovery announcer (mDNS/DNS-SD; qf-discovery).
 *
 * `qualify-cli serve` runs them on the helper machine; the built-in peer (qf-builtin-peer.h) runs
 * them on loopback for single-PC and training runs. Both go through here: bind (every socket
 * open, so a bind error comes before any thread starts), read the ports, start, stop.
 */
#pragma once

#include <glib.h>

#include "qf-responder.h"

G_BEGIN_DECLS

/* Called on a service's thread when its loop ends with an error (the other service keeps
 * running until qf_peer_services_stop). */
typedef void (*QfPeerServicesFailFunc) (const GError *error,
                                        gpointer      user_data);

typedef struct
{
  const char            *bind_address;     /* NULL = all addresses */
  guint16                latency_port;     /* 0 = a free port (see the getters) */
  guint16                bandwidth_port;   /* 0 = a free port */
  const char            *iface;            /* serve on this interface only; may be NULL */
  guint                  max_clients;      /* 0 = each engine's default */
  guint                  max_test_seconds; /* 0 = each engine's default */
  QfResponderEmulation   emulate;          /* latency replies as a poor link would; 0 = none */
  GBytes                *token;            /* shared access token (qf-auth.h); NULL = none */
  gboolean               allow_classic;    /* with a token: still serve stock sockperf/iperf3 */
  gboolean               spin_all;         /* busy-poll every ping-pong client */
  QfResponderLogFunc     log;              /* one line per test or refusal, on a service thread */
  gpointer               log_data;
  QfPeerServicesFailFunc fail;             /* NULL = g_warning */
  gpointer               fail_data;
  gboolean               announce;         /* answer discovery (qf-discovery.h) on iface, or on
                                            * every interface that is up */
  const char            *announce_name;    /* the name announced; NULL = the host name */
} QfPeerServicesConfig;

/* A client being served now, as another thread may copy it (qf_peer_services_list_clients). */
typedef struct
{
  char    *address;     /* the client's address as text ("192.0.2.7", "fe80::1%eth0") */
  char    *test;        /* "latency-tcp", "latency-udp", "cycle", "bandwidth" */
  gint64   started_us;  /* g_get_monotonic_time () when its test started */
  gdouble  figure;      /* messages/s (latency, cycle) or Mbit/s (bandwidth) so far */
  char    *unit;        /* translated "msg/s" or "Mbit/s" */
} QfPeerClient;

void            qf_peer_client_free                 (QfPeerClient               *client);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfPeerClient, qf_peer_client_free)

typedef struct QfPeerServices QfPeerServices;

/* Opens and binds every service's sockets; no thread runs yet. The config's strings and token
 * are only borrowed for the call (the engines keep what they need). */
QfPeerServices *qf_peer_services_bind               (const QfPeerServicesConfig *config,
                                                     GError                    **error);
/* TCP and UDP port of the latency and cycle responder. */
guint16         qf_peer_services_get_latency_port   (QfPeerServices             *services);
/* TCP and UDP port of the bandwidth server. */
guint16         qf_peer_services_get_bandwidth_port (QfPeerServices             *services);
/* Starts one thread per service. Call once. */
void            qf_peer_services_start              (QfPeerServices             *services);
/* The clients served now by every service (a snapshot: a GPtrArray of QfPeerClient, free func
 * set; empty when none). Any thread. */
GPtrArray      *qf_peer_services_list_clients       (QfPeerServices             *services);
/* Whether discovery answers (config.announce and port 5353 could be opened); when asked to and
 * it cannot, *why_not (may be NULL) says why, owned by services. */
gboolean        qf_peer_services_is_announcing      (QfPeerServices             *services,
                                                     const char                **why_not);
/* Stop = set the shared flag, join every thread that runs, free. NULL is allowed. */
void            qf_peer_services_stop               (QfPeerServices             *services);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (QfPeerServices, qf_peer_services_stop)

G_END_DECLS
