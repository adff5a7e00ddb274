/* qf-discovery-browse.c — the PC under test's side of discovery: asks who offers
 * "_qualify._tcp" and collects the answers (src/engine). See qf-discovery.h.
 *
 * The question goes out from an ephemeral port, so the helpers answer straight back to us
 * ("legacy unicast", RFC 6762 §6.7): no port 5353 of our own, which avahi-daemon may hold, and
 * no privilege. It is asked at 0, 1, 2, 4 … s on each interface (a lost packet on a link that has
 * just come up is asked again) until the time is up.
 *
 * Only answers to our own queries count: from port 5353 of a sender on the link (a link-local
 * address or one inside the interface's prefixes), with hop limit / TTL 255 (crossed no
 * router, RFC 6762 §11), with the id of a query we sent and our question repeated. A helper is
 * one instance heard on one interface from one responder: a second sender answering for the
 * same instance is a second helper, never a source of addresses for the first (it could
 * otherwise steer clients to an address of its choosing). The same responder's other family
 * counts as the same one when each announces the address the other answered from. A helper's
 * addresses come from the A and AAAA records of its SRV target (an IPv6 link-local one with
 * "%iface"), or, when it told none, the address the answer came from. Names and versions are
 * cleaned of control characters before anyone prints them.
 */
#include "config.h"

#include <arpa/inet.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "qf-clock.h"
#include "qf-discovery-private.h"
#include "qf-i18n.h"
#include "qf-mdns.h"
#include "qf-net.h"
#include "qf-text.h"

#define MAX_SOURCES   2     /* one responder: its IPv6 and its IPv4 address */
#define MAX_IDS       32    /* the ids of the queries asked, newest last */

typedef struct
{
  QfHelperInfo *info;
  char         *instance;     /* as heard (dotted, escaped): the key with ifindex and sources */
  int          ifindex;
  char         *sources[MAX_SOURCES + 1];   /* the responder's addresses the answers came from */
  guint         serial;       /* the packet that last matched it */
  char         *target;        /* SRV target host */
  gboolean     have_srv, have_txt;
  char        *reported;      /* what was last handed to found() */
} Entry;

typedef struct
{
  int                   fd6, fd4;
  GArray               *links;        /* of QfMdnsLink */
  GPtrArray            *entries;      /* of Entry */
  QfDiscoveryFoundFunc  found;
  gpointer              user_data;
  guint16               ids[MAX_IDS];
  guint                 n_ids;
  guint                 serial;
  char                 *source;       /* this packet's sender, as a literal */
  GPtrArray            *heard;        /* this packet's A/AAAA addresses, as literals */
  QfDnsMessage          msg;
} Browse;

static void
entry_free (Entry *entry)
{
  qf_helper_info_free (entry->info);
  g_free (entry->instance);
  for (guint i = 0; entry->sources[i] != NULL; i++)
    g_free (entry->sources[i]);
  g_free (entry->target);
  g_free (entry->reported);
  g_free (entry);
}

static const QfMdnsLink *
find_link (Browse *self,
           int     ifindex)
{
  for (guint i = 0; i < self->links->len; i++)
    if (g_array_index (self->links, QfMdnsLink, i).ifindex == ifindex)
      return &g_array_index (self->links, QfMdnsLink, i);
  return NULL;
}

static gboolean
strv_has (char * const *strv,
          const char   *text)
{
  return g_strv_contains ((const char * const *) strv, text);
}

/* Whether this packet comes from entry's responder: from an address it answered from before, or
 * from one it announced as its own while this packet announces one it answered from (its other
 * family). Anyone else answering for the same instance is another helper. */
static gboolean
entry_same_responder (Browse *self,
                      Entry  *entry)
{
  guint n = g_strv_length (entry->sources);

  if (strv_has (entry->sources, self->source))
    return TRUE;
  if (n >= MAX_SOURCES || !strv_has (entry->info->addresses, self->source))
    return FALSE;
  for (guint i = 0; i < self->heard->len; i++)
    if (strv_has (entry->sources, g_ptr_array_index (self->heard, i)))
      {
        entry->sources[n] = g_strdup (self->source);
        return TRUE;
      }
  return FALSE;
}

/* The helper instance on ifindex heard from this packet's sender. */
static Entry *
find_entry (Browse     *self,
            const char *instance,
            int         ifindex,
            gboolean    create)
{
  Entry *entry;

  for (guint i = 0; i < self->entries->len; i++)
    {
      entry = g_ptr_array_index (self->entries, i);
      if (entry->ifindex == ifindex && qf_dns_name_equal (entry->instance, instance)
          && entry_same_responder (self, entry))
        {
          entry->serial = self->serial;
          return entry;
        }
    }
  if (!create || self->entries->len >= 256)
    return NULL;
  entry = g_new0 (Entry, 1);
  entry->ifindex = ifindex;
  entry->serial = self->serial;
  entry->instance = g_strdup (instance);
  entry->sources[0] = g_strdup (self->source);
  entry->info = g_new0 (QfHelperInfo, 1);
  entry->info->instance = qf_text_clean (instance, -1);
  entry->info->iface = g_strdup (find_link (self, ifindex)->name);
  entry->info->addresses = g_new0 (char *, 1);
  g_ptr_array_add (self->entries, entry);
  return entry;
}

/* ---- reading an answer ---------------------------------------------------------------------- */

static guint16
txt_port (const QfDnsRecord *r,
          const char        *key)
{
  g_autofree char *value = qf_dns_txt_get (r->txt, r->txt_len, key);
  guint64 port = 0;

  if (value == NULL || !g_ascii_string_to_unsigned (value, 10, 1, 65535, &port, NULL))
    return 0;
  return (guint16) port;
}

static char *
txt_text (const QfDnsRecord *r,
          const char        *key)
{
  g_autofree char *value = qf_dns_txt_get (r->txt, r->txt_len, key);

  return value != NULL ? qf_text_clean (value, -1) : NULL;
}

static void
read_txt (Entry             *entry,
          const QfDnsRecord *r)
{
  g_autofree char *code = qf_dns_txt_get (r->txt, r->txt_len, "code");
  char *name = txt_text (r, "name");
  guint16 bw = txt_port (r, "bw"), lat = txt_port (r, "lat");

  if (name != NULL && name[0] != '\0')
    g_free (entry->info->name), entry->info->name = name;
  else
    g_free (name);
  g_free (entry->info->version);
  entry->info->version = txt_text (r, "v");
  if (lat != 0)
    entry->info->latency_port = lat;
  entry->info->bandwidth_port = bw;
  entry->info->token_required = g_strcmp0 (code, "1") == 0;
  entry->have_txt = TRUE;
}

/* An address as a client writes it: IPv6 link-local ones with "%iface". */
static char *
address_literal (int           family,
                 const guint8 *address,
                 const char   *iface)
{
  char text[INET6_ADDRSTRLEN];

  if (inet_ntop (family, address, text, sizeof text) == NULL)
    return NULL;
  /* address points into the packet, with no alignment: test fe80::/10 on the bytes, never
   * through a struct in6_addr */
  if (family == AF_INET6 && address[0] == 0xfe && (address[1] & 0xc0) == 0x80)
    return g_strdup_printf ("%s%%%s", text, iface);
  return g_strdup (text);
}

static const guint8 *
sockaddr_bytes (const struct sockaddr *from)
{
  return from->sa_family == AF_INET6
         ? ((const struct sockaddr_in6 *) from)->sin6_addr.s6_addr
         : (const guint8 *) &((const struct sockaddr_in *) from)->sin_addr;
}

static void
add_address (Entry                 *entry,
             int                    family,
             const guint8          *address,
             const char            *iface)
{
  g_autofree char *literal = address_literal (family, address, iface);
  guint n = g_strv_length (entry->info->addresses);

  if (literal == NULL || n >= 16
      || g_strv_contains ((const char * const *) entry->info->addresses, literal))
    return;
  entry->info->addresses = g_renew (char *, entry->info->addresses, n + 2);
  entry->info->addresses[n] = g_steal_pointer (&literal);
  entry->info->addresses[n + 1] = NULL;
}

static void
read_records (Browse *self,
              int     ifindex)
{
  const QfDnsMessage *msg = &self->msg;

  for (guint i = 0; i < msg->n_records; i++)
    {
      const QfDnsRecord *r = &msg->records[i];

      if (r->type == QF_DNS_TYPE_PTR && r->ttl > 0
          && qf_dns_name_equal (r->name, QF_MDNS_SERVICE_NAME))
        find_entry (self, r->target, ifindex, TRUE);
    }
  for (guint i = 0; i < msg->n_records; i++)
    {
      const QfDnsRecord *r = &msg->records[i];
      Entry *entry = find_entry (self, r->name, ifindex, FALSE);

      if (entry != NULL && r->type == QF_DNS_TYPE_SRV)
        {
          g_free (entry->target);
          entry->target = g_strdup (r->target);
          if (entry->info->latency_port == 0)
            entry->info->latency_port = r->port;
          entry->have_srv = TRUE;
        }
      else if (entry != NULL && r->type == QF_DNS_TYPE_TXT)
        read_txt (entry, r);
    }
}

static void
read_addresses (Browse                *self,
                const struct sockaddr *from,
                const QfMdnsLink      *link)
{
  for (guint e = 0; e < self->entries->len; e++)
    {
      Entry *entry = g_ptr_array_index (self->entries, e);

      if (entry->serial != self->serial || entry->target == NULL)
        continue;
      for (guint i = 0; i < self->msg.n_records; i++)
        {
          const QfDnsRecord *r = &self->msg.records[i];

          if ((r->type == QF_DNS_TYPE_A || r->type == QF_DNS_TYPE_AAAA)
              && qf_dns_name_equal (r->name, entry->target))
            add_address (entry, r->type == QF_DNS_TYPE_A ? AF_INET : AF_INET6, r->address,
                         link->name);
        }
      if (entry->info->addresses[0] == NULL && entry->have_srv)
        add_address (entry, from->sa_family, sockaddr_bytes (from), link->name);
    }
}

/* Hands every complete helper that is new or changed to found(). */
static void
report_changes (Browse *self)
{
  for (guint e = 0; e < self->entries->len; e++)
    {
      Entry *entry = g_ptr_array_index (self->entries, e);
      g_autofree char *addresses = NULL;
      g_autofree char *now = NULL;

      if (!entry->have_srv || !entry->have_txt || entry->info->addresses[0] == NULL)
        continue;
      if (entry->info->name == NULL)
        {
          g_autofree char *label = qf_dns_first_label (entry->instance);
          entry->info->name = qf_text_clean (label != NULL ? label : entry->instance, -1);
        }
      addresses = g_strjoinv (" ", entry->info->addresses);
      now = g_strdup_printf ("%s|%s|%u|%u|%d|%s", entry->info->name, addresses,
                             entry->info->latency_port, entry->info->bandwidth_port,
                             entry->info->token_required, entry->info->version);
      if (g_strcmp0 (now, entry->reported) == 0)
        continue;
      g_free (entry->reported);
      entry->reported = g_steal_pointer (&now);
      if (self->found != NULL)
        self->found (entry->info, self->user_data);
    }
}

/* Whether msg answers a query we asked: its id is one of ours and it repeats our question
 * (RFC 6762 §6.7), so a stranger cannot slip answers in without seeing the query. */
static gboolean
answers_our_query (Browse *self)
{
  const QfDnsMessage *msg = &self->msg;
  gboolean ours = FALSE;

  if (!(msg->flags & QF_DNS_FLAG_RESPONSE))
    return FALSE;
  for (guint i = 0; i < self->n_ids && !ours; i++)
    ours = self->ids[i] == msg->id;
  for (guint i = 0; ours && i < msg->n_questions; i++)
    if (msg->questions[i].type == QF_DNS_TYPE_PTR
        && qf_dns_name_equal (msg->questions[i].name, QF_MDNS_SERVICE_NAME))
      return TRUE;
  return FALSE;
}

/* This packet's sender and the addresses it announces, as literals, for find_entry. */
static void
note_sender (Browse                *self,
             const struct sockaddr *from,
             const QfMdnsLink      *link)
{
  g_free (self->source);
  self->source = address_literal (from->sa_family, sockaddr_bytes (from), link->name);
  g_ptr_array_set_size (self->heard, 0);
  for (guint i = 0; i < self->msg.n_records; i++)
    {
      const QfDnsRecord *r = &self->msg.records[i];

      char *literal = NULL;

      if (r->type == QF_DNS_TYPE_A || r->type == QF_DNS_TYPE_AAAA)
        literal = address_literal (r->type == QF_DNS_TYPE_A ? AF_INET : AF_INET6, r->address,
                                   link->name);
      if (literal != NULL)
        g_ptr_array_add (self->heard, literal);
    }
  self->serial++;
}

static gboolean
receive_one (Browse *self,
             int     fd)
{
  guint8 packet[QF_MDNS_MAX_PACKET];
  struct sockaddr_storage from;
  const QfMdnsLink *link;
  int ifindex, hop_limit;
  gssize n = _qf_mdns_socket_recv (fd, packet, sizeof packet, &from, &ifindex, &hop_limit);
  guint16 port;

  if (n < 0)
    return FALSE;
  port = ntohs (from.ss_family == AF_INET6 ? ((struct sockaddr_in6 *) &from)->sin6_port
                                           : ((struct sockaddr_in *) &from)->sin_port);
  link = find_link (self, ifindex);
  /* Only a responder on a link we asked on, whose packet crossed no router (hop limit 255,
   * RFC 6762 §11), answering a query of ours. */
  if (link == NULL || port != QF_MDNS_PORT || hop_limit != QF_MDNS_LINK_HOP_LIMIT
      || !_qf_mdns_link_has_source (link, (struct sockaddr *) &from)
      || !qf_dns_parse (packet, (gsize) n, &self->msg) || !answers_our_query (self))
    return TRUE;
  note_sender (self, (struct sockaddr *) &from, link);
  if (self->source == NULL)
    return TRUE;
  read_records (self, ifindex);
  read_addresses (self, (struct sockaddr *) &from, link);
  report_changes (self);
  return TRUE;
}

/* ---- asking --------------------------------------------------------------------------------- */

static void
send_queries (Browse *self)
{
  guint8 buf[512];
  QfDnsWriter w;
  gsize len;
  guint16 id = (guint16) g_random_int_range (1, 65536);

  if (self->n_ids == MAX_IDS)
    memmove (self->ids, self->ids + 1, sizeof self->ids - sizeof self->ids[0]);
  self->ids[MIN (self->n_ids, MAX_IDS - 1)] = id;
  self->n_ids = MIN (self->n_ids + 1, MAX_IDS);
  qf_dns_writer_init (&w, buf, sizeof buf, id, 0);
  qf_dns_writer_question (&w, QF_MDNS_SERVICE_NAME, QF_DNS_TYPE_PTR, QF_DNS_CLASS_IN);
  len = qf_dns_writer_finish (&w);
  for (guint i = 0; i < self->links->len && len > 0; i++)
    {
      int ifindex = g_array_index (self->links, QfMdnsLink, i).ifindex;

      /* Either family may be refused on a link (no IPv4 address on a direct cable): the other
       * one asks. */
      if (self->fd6 >= 0)
        _qf_mdns_socket_multicast (self->fd6, AF_INET6, ifindex, buf, len);
      if (self->fd4 >= 0)
        _qf_mdns_socket_multicast (self->fd4, AF_INET, ifindex, buf, len);
    }
}

static gboolean
browse_open (Browse      *self,
             const char  *iface,
             GError     **error)
{
  g_autoptr(GError) error6 = NULL;

  if (iface != NULL && !qf_net_iface_exists (iface, error))
    return FALSE;
  self->links = _qf_mdns_links_scan (iface, error);
  if (self->links == NULL)
    return FALSE;
  if (iface != NULL && self->links->len == 0)
    {
      g_autofree char *shown = qf_text_clean (iface, -1);
      g_autofree char *word = qf_text_shell_word (iface);

      g_set_error (error, QF_NET_ERROR, QF_NET_ERROR_UNREACHABLE,
                   _("The network interface “%s” is down. Plug the cable in, or turn the "
                     "interface on (“ip link set %s up”)."), shown, word);
      return FALSE;
    }
  self->fd6 = _qf_mdns_socket_open (AF_INET6, 0, &error6);
  self->fd4 = _qf_mdns_socket_open (AF_INET, 0, self->fd6 < 0 ? error : NULL);
  return self->fd6 >= 0 || self->fd4 >= 0;
}

static void
browse_loop (Browse     *self,
             guint       duration_ms,
             const gint *cancel)
{
  gint64 start_ns = qf_clock_now_ns ();
  gint64 end_ns = start_ns + (gint64) duration_ms * QF_NSEC_PER_MSEC;
  guint asked = 0;

  for (;;)
    {
      struct pollfd fds[2] = { { self->fd6, POLLIN, 0 }, { self->fd4, POLLIN, 0 } };
      gint64 now_ns = qf_clock_now_ns ();
      /* Asked at 0, 1, 2, 4, 8 … s. */
      gint64 ask_at_ns = start_ns + (asked < 2 ? (gint64) asked : (gint64) 1 << MIN (asked - 1, 20))
                                    * QF_NSEC_PER_SEC;

      if (now_ns >= end_ns || (cancel != NULL && g_atomic_int_get (cancel)))
        break;
      if (now_ns >= ask_at_ns)
        {
          send_queries (self);
          asked++;
        }
      if (poll (fds, 2, (int) MIN (100, (end_ns - now_ns) / QF_NSEC_PER_MSEC + 1)) <= 0)
        continue;
      for (guint i = 0; i < 64 && (fds[0].revents & POLLIN); i++)
        if (!receive_one (self, self->fd6))
          break;
      for (guint i = 0; i < 64 && (fds[1].revents & POLLIN); i++)
        if (!receive_one (self, self->fd4))
          break;
    }
}

GPtrArray *
qf_discovery_browse (const char            *iface,
                     guint                  duration_ms,
                     const gint            *cancel,
                     QfDiscoveryFoundFunc   found,
                     gpointer               user_data,
                     GError               **error)
{
  g_autofree Browse *self = g_new0 (Browse, 1);
  GPtrArray *helpers = g_ptr_array_new_with_free_func ((GDestroyNotify) qf_helper_info_free);

  self->fd6 = self->fd4 = -1;
  self->found = found;
  self->user_data = user_data;
  self->entries = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);
  self->heard = g_ptr_array_new_with_free_func (g_free);
  if (browse_open (self, iface, error))
    browse_loop (self, duration_ms, cancel);
  else
    g_clear_pointer (&helpers, g_ptr_array_unref);
  for (guint e = 0; helpers != NULL && e < self->entries->len; e++)
    {
      Entry *entry = g_ptr_array_index (self->entries, e);

      if (entry->reported != NULL)
        g_ptr_array_add (helpers, qf_helper_info_copy (entry->info));
    }
  if (self->fd6 >= 0)
    close (self->fd6);
  if (self->fd4 >= 0)
    close (self->fd4);
  g_clear_pointer (&self->links, g_array_unref);
  g_ptr_array_unref (self->entries);
  g_ptr_array_unref (self->heard);
  g_free (self->source);
  return helpers;
}
