/* qf-session-check.c — reading and checking a session file before anything uses it (src/core).
 * See qf-session-check.h. Three passes, each bounded by the one before: the file's size (fstat),
 * a linear scan of the raw text (depth, number of values, NUL escapes, integers beyond 64 bits),
 * then the parsed tree: the shape of every member Qualify reads (the tables below, from
 * docs/session-format.md) and the text of every string anywhere in it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qf-i18n.h"
#include "qf-session-check.h"
#include "qf-session.h"

G_DEFINE_QUARK (qf-session-error-quark, qf_session_error)

/* ---- the file ----------------------------------------------------------------------------- */

static gboolean
read_error (GError     **error,
            const char  *file,
            int          saved_errno)
{
  g_set_error (error, QF_SESSION_ERROR, QF_SESSION_ERROR_READ,
               _("Cannot read the session %s: %s"), file, g_strerror (saved_errno));
  return FALSE;
}

static gboolean
read_all (int     fd,
          char   *buffer,
          gsize   size,
          gsize  *got)
{
  *got = 0;
  while (*got < size)
    {
      gssize n = read (fd, buffer + *got, size - *got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return FALSE;
      if (n == 0)
        break;
      *got += (gsize) n;
    }
  return TRUE;
}

gboolean
qf_session_read_file (const char  *file,
                      char       **text,
                      gsize       *length,
                      GError     **error)
{
  g_autofree char *buffer = NULL;
  struct stat st;
  gsize got;
  int fd, saved;

  g_return_val_if_fail (file != NULL && text != NULL && length != NULL, FALSE);

  fd = g_open (file, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      saved = errno;
      if (fd >= 0)
        close (fd);
      return read_error (error, file, saved);
    }
  if (!S_ISREG (st.st_mode) || st.st_size > QF_SESSION_MAX_FILE_BYTES)
    {
      close (fd);
      if (!S_ISREG (st.st_mode))
        g_set_error (error, QF_SESSION_ERROR, QF_SESSION_ERROR_READ,
                     _("Cannot read the session %s: it is not a regular file."), file);
      else
        g_set_error (error, QF_SESSION_ERROR, QF_SESSION_ERROR_FORMAT,
                     _("%s is %.1f MiB; a session file may be at most %d MiB (Qualify writes about "
                       "1.4 MiB for a full run). This is not a session Qualify wrote."),
                     file, st.st_size / 1048576.0, QF_SESSION_MAX_FILE_BYTES / 1048576);
      return FALSE;
    }
  /* One byte more than the cap: a file that grew since fstat is still refused. */
  buffer = g_malloc ((gsize) st.st_size + 2);
  if (!read_all (fd, buffer, (gsize) st.st_size + 1, &got))
    {
      saved = errno;
      close (fd);
      return read_error (error, file, saved);
    }
  close (fd);
  if (got > QF_SESSION_MAX_FILE_BYTES)
    {
      g_set_error (error, QF_SESSION_ERROR, QF_SESSION_ERROR_FORMAT,
                   _("%s grew past %d MiB while it was read."), file,
                   QF_SESSION_MAX_FILE_BYTES / 1048576);
      return FALSE;
    }
  buffer[got] = '\0';
  *length = got;
  *text = g_steal_pointer (&buffer);
  return TRUE;
}

/* ---- the raw text --------------------------------------------------------------------------- */

/* The marker a NUL escape becomes: a control character, which the text check refuses. */
#define NUL_MARK "\\u0001"

typedef struct
{
  const char *text;
  gsize       length;
  gsize       pos;
  gsize       copied;   /* text[0..copied) is in out */
  GString    *out;      /* the rewritten text; NULL while nothing needed rewriting */
} Scan;

static void
scan_replace (Scan       *scan,
              gsize       from,
              gsize       to,
              const char *with)
{
  if (scan->out == NULL)
    scan->out = g_string_sized_new (scan->length + 64);
  g_string_append_len (scan->out, scan->text + scan->copied, from - scan->copied);
  g_string_append (scan->out, with);
  scan->copied = to;
}

/* A string from its opening quote; "\u0000" becomes NUL_MARK. */
static void
scan_string (Scan *scan)
{
  const char *t = scan->text;

  scan->pos++;
  while (scan->pos < scan->length && t[scan->pos] != '"')
    {
      if (t[scan->pos] != '\\' || scan->pos + 1 >= scan->length)
        {
          scan->pos++;
          continue;
        }
      if (t[scan->pos + 1] == 'u' && scan->pos + 6 <= scan->length
          && memcmp (t + scan->pos + 2, "0000", 4) == 0)
        scan_replace (scan, scan->pos, scan->pos + 6, NUL_MARK);
      scan->pos += t[scan->pos + 1] == 'u' ? 6 : 2;
    }
  scan->pos++;
}

/* A number; a whole number that does not fit 64 bits gets ".0", so that it is read as the
 * large number it is (the parser would wrap it: 99999999999999999999 became -1). */
static void
scan_number (Scan *scan)
{
  gsize start = scan->pos;
  gboolean whole = TRUE;

  while (scan->pos < scan->length
         && (g_ascii_isdigit (scan->text[scan->pos]) || scan->text[scan->pos] == '-'
             || scan->text[scan->pos] == '+' || scan->text[scan->pos] == '.'
             || scan->text[scan->pos] == 'e' || scan->text[scan->pos] == 'E'))
    {
      whole &= g_ascii_isdigit (scan->text[scan->pos]) || scan->text[scan->pos] == '-';
      scan->pos++;
    }
  if (whole && scan->pos - start > 18)
    {
      g_autofree char *token = g_strndup (scan->text + start, MIN (scan->pos - start, 64));
      errno = 0;
      (void) g_ascii_strtoll (token, NULL, 10);
      if (errno == ERANGE || scan->pos - start >= 64)
        scan_replace (scan, scan->pos, scan->pos, ".0");
    }
}

static gboolean
scan_fail (GError     **error,
           const char  *message)
{
  g_set_error_literal (error, QF_SESSION_ERROR, QF_SESSION_ERROR_FORMAT, message);
  return FALSE;
}

/* Depth and number of values before the parser (which recurses, and keeps every value) sees
 * the text; a NUL byte, which would end the text early, is refused. */
static gboolean
scan_text (Scan    *scan,
           GError **error)
{
  guint depth = 0;
  gsize values = 0;

  while (scan->pos < scan->length)
    {
      char c = scan->text[scan->pos];

      if (c == '"' || c == '-' || g_ascii_isdigit (c) || c == 't' || c == 'f' || c == 'n'
          || c == '[' || c == '{')
        values++;
      if (values > QF_SESSION_MAX_VALUES)
        return scan_fail (error, _("the session holds more than a million values; a session "
                                   "Qualify writes holds far fewer."));
      if (c == '"')
        scan_string (scan);
      else if (c == '-' || g_ascii_isdigit (c))
        scan_number (scan);
      else if (c == '\0')
        return scan_fail (error, _("the session holds a NUL byte; it is not text."));
      else
        {
          if ((c == '[' || c == '{') && ++depth > QF_SESSION_MAX_DEPTH)
            return scan_fail (error, _("the session nests lists and objects more than 32 levels "
                                       "deep; a session Qualify writes nests fewer than 10."));
          if ((c == ']' || c == '}') && depth > 0)
            depth--;
          scan->pos++;
        }
    }
  return TRUE;
}

JsonNode *
qf_session_parse_text (const char  *text,
                       gsize        length,
                       GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) local = NULL;
  Scan scan = { text, length, 0, 0, NULL };
  g_autoptr(GString) out = NULL;
  JsonNode *root;
  gboolean ok;

  g_return_val_if_fail (text != NULL, NULL);

  ok = scan_text (&scan, error);
  out = scan.out;
  if (!ok)
    return NULL;
  if (out != NULL)
    g_string_append_len (out, text + scan.copied, length - scan.copied);
  if (!json_parser_load_from_data (parser, out != NULL ? out->str : text,
                                   out != NULL ? (gssize) out->len : (gssize) length, &local))
    {
      g_set_error (error, QF_SESSION_ERROR, QF_SESSION_ERROR_FORMAT,
                   _("the session is not valid JSON: %s"), local->message);
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, QF_SESSION_ERROR, QF_SESSION_ERROR_FORMAT,
                           _("the session is not a JSON object."));
      return NULL;
    }
  return json_node_copy (root);
}

/* ---- text ----------------------------------------------------------------------------------- */

/* what: the member or field in words ("the session's “operator”", "--site"). multiline: a tab
 * or a line break is allowed (error messages and advice paragraphs may hold them). Returns
 * the reason text is refused, or NULL. */
static char *
text_problem (const char *what,
              const char *text,
              guint       max_chars,
              gboolean    multiline)
{
  guint n = 0;

  if (!g_utf8_validate (text, -1, NULL))
    return g_strdup_printf (_("%s is not valid UTF-8 text (a broken byte sequence or a lone surrogate)."),
                            what);
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (++n > max_chars)
        return g_strdup_printf (_("%s is longer than %u characters."), what, max_chars);
      if (g_unichar_type (c) == G_UNICODE_CONTROL && !(multiline && (c == '\t' || c == '\n')))
        return c == 1
               ? g_strdup_printf (_("%s holds a NUL character (U+0000) or the control character U+0001, which a report cannot show."), what)
               : g_strdup_printf (_("%s holds the control character U+%04X, which a report cannot show."),
                                  what, c);
    }
  return NULL;
}

/* text made acceptable to text_problem (multiline, max_chars): invalid bytes and control
 * characters become U+FFFD, and a text too long is cut with "…". NULL when text is fine. */
static char *
scrubbed_text (const char *text,
               guint       max_chars)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  GString *out = g_string_new (NULL);
  guint n = 0;

  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (++n >= max_chars)
        {
          g_string_append_unichar (out, 0x2026);
          break;
        }
      if (g_unichar_type (c) == G_UNICODE_CONTROL && c != '\t' && c != '\n')
        c = 0xFFFD;
      g_string_append_unichar (out, c);
    }
  return g_string_free (out, FALSE);
}

void
qf_session_scrub_text (JsonNode *node)
{
  g_return_if_fail (node != NULL);

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      json_object_iter_init (&iter, json_node_get_object (node));
      while (json_object_iter_next (&iter, &name, &member))
        qf_session_scrub_text (member);
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (array); i++)
        qf_session_scrub_text (json_array_get_element (array, i));
    }
  else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *text = json_node_get_string (node);
      g_autofree char *problem = text_problem ("", text, QF_SESSION_MAX_TEXT_CHARS, TRUE);

      if (problem != NULL)
        {
          g_autofree char *fixed = scrubbed_text (text, QF_SESSION_MAX_TEXT_CHARS);
          json_node_set_string (node, fixed);
        }
    }
}

gboolean
qf_session_check_name (const char  *field,
                       const char  *text,
                       GError     **error)
{
  g_autofree char *problem = NULL;

  g_return_val_if_fail (field != NULL, FALSE);
  if (text == NULL)
    return TRUE;
  problem = text_problem (field, text, QF_SESSION_MAX_NAME_CHARS, FALSE);
  if (problem == NULL)
    return TRUE;
  g_set_error_literal (error, QF_SESSION_ERROR, QF_SESSION_ERROR_FORMAT, problem);
  return FALSE;
}

static gboolean
name_empty (JsonObject *root,
            const char *member)
{
  JsonNode *node = json_object_get_member (root, member);
  g_autofree char *text = NULL;

  if (node == NULL || json_node_get_value_type (node) != G_TYPE_STRING)
    return TRUE;
  text = g_strstrip (g_strdup (json_node_get_string (node)));
  return *text == '\0';
}

char *
qf_session_missing_sign_off (JsonObject *root)
{
  static const char *const members[] = { "operator", "customer", "site" };
  /* the phrases for each set of missing names, by bit: operator 1, customer 2, site 4 */
  const char *const phrases[] = {
    NULL,
    N_("the operator"), N_("the customer"), N_("the operator and the customer"),
    N_("the site"), N_("the operator and the site"), N_("the customer and the site"),
    N_("the operator, the customer and the site"),
  };
  guint missing = 0;

  g_return_val_if_fail (root != NULL, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (members); i++)
    if (name_empty (root, members[i]))
      missing |= 1u << i;
  return missing != 0 ? g_strdup (_(phrases[missing])) : NULL;
}

static const char *
edited_hint (void)
{
  return _("This is not a session Qualify wrote, or it was edited; use the session.json Qualify saved.");
}

static gboolean
check_fail (GError     **error,
            char        *problem)
{
  g_set_error (error, QF_SESSION_ERROR, QF_SESSION_ERROR_FORMAT, "%s %s", problem, edited_hint ());
  g_free (problem);
  return FALSE;
}

static char *
member_words (const char *path)
{
  return g_strdup_printf (_("the session's “%s”"), path);
}

static gboolean
check_string (const char  *path,
              const char  *text,
              guint        max_chars,
              gboolean     multiline,
              GError     **error)
{
  g_autofree char *what = member_words (path);
  char *problem = text_problem (what, text, max_chars, multiline);

  return problem == NULL || check_fail (error, problem);
}

/* Every string and member name anywhere, and every number finite. */
static gboolean
check_tree_text (JsonNode  *node,
                 GString   *path,
                 GError   **error)
{
  gsize len = path->len;

  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      json_object_iter_init (&iter, json_node_get_object (node));
      while (json_object_iter_next (&iter, &name, &member))
        {
          g_autofree char *what = g_strdup_printf (_("a member name in the session's “%s”"),
                                                   len > 0 ? path->str : "{}");
          char *problem = text_problem (what, name, QF_SESSION_MAX_NAME_CHARS, FALSE);
          if (problem != NULL)
            return check_fail (error, problem);
          g_string_append_printf (path, len > 0 ? ".%s" : "%s", name);
          if (!check_tree_text (member, path, error))
            return FALSE;
          g_string_truncate (path, len);
        }
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          g_string_append_printf (path, "[%u]", i);
          if (!check_tree_text (json_array_get_element (array, i), path, error))
            return FALSE;
          g_string_truncate (path, len);
        }
    }
  else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return check_string (path->str, json_node_get_string (node), QF_SESSION_MAX_TEXT_CHARS, TRUE, error);
  else if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_DOUBLE
           && !isfinite (json_node_get_double (node)))
    return check_fail (error, g_strdup_printf (_("the session's “%s” is a number too large to hold."),
                                               path->str));
  return TRUE;
}

/* ---- shape ---------------------------------------------------------------------------------- */

typedef enum
{
  SHAPE_ANY,
  SHAPE_OBJECT,
  SHAPE_ARRAY,
  SHAPE_STRING,
  SHAPE_NAME,     /* a person's or place's name: short, one line */
  SHAPE_NUMBER,
  SHAPE_INT,      /* a whole number that fits a C int (error codes, indexes) */
  SHAPE_INT64,    /* a whole number (sample times and values) */
  SHAPE_BOOLEAN,
  SHAPE_POINTS,   /* [[t_s, fraction], …] */
  SHAPE_LIVE,     /* [[t_s, {figures}], …] */
} Shape;

typedef struct Rule Rule;
struct Rule
{
  const char *key;
  Shape       shape;
  const Rule *members;  /* an object's members; for a list: each element is such an object */
  Shape       element;  /* a list of plain values of this shape */
};

/* Members may be absent or null unless the check is of a whole session and they are
 * required; the types are docs/session-format.md's. */
static const Rule note_rules[] = { { "id", SHAPE_STRING }, { "text", SHAPE_STRING }, { NULL } };
static const Rule verdict_object_rules[] = {
  { "key", SHAPE_STRING }, { "index", SHAPE_INT }, { "metric", SHAPE_STRING },
  { "label", SHAPE_STRING }, { "comparison", SHAPE_STRING }, { "limit", SHAPE_NUMBER },
  { "unit", SHAPE_STRING }, { "role", SHAPE_STRING }, { "measured", SHAPE_NUMBER },
  { "verdict", SHAPE_STRING }, { "reason", SHAPE_STRING }, { NULL }
};
static const Rule error_rules[] = {
  { "domain", SHAPE_STRING }, { "code", SHAPE_INT }, { "message", SHAPE_STRING }, { NULL }
};
static const Rule samples_rules[] = {
  { "t_ns", SHAPE_ARRAY, NULL, SHAPE_INT64 }, { "value_ns", SHAPE_ARRAY, NULL, SHAPE_INT64 },
  { "channel", SHAPE_ARRAY, NULL, SHAPE_INT64 }, { "recorded", SHAPE_NUMBER },
  { "dropped", SHAPE_NUMBER }, { NULL }
};
static const Rule step_rules[] = {
  { "key", SHAPE_STRING }, { "test", SHAPE_STRING }, { "title", SHAPE_STRING },
  { "params", SHAPE_OBJECT }, { "classic_command", SHAPE_STRING }, { "status", SHAPE_STRING },
  { "status_reason", SHAPE_STRING }, { "started_at", SHAPE_STRING },
  { "finished_at", SHAPE_STRING }, { "duration_s", SHAPE_NUMBER },
  { "estimated_s", SHAPE_NUMBER }, { "error", SHAPE_OBJECT, error_rules },
  { "result", SHAPE_OBJECT }, { "partial", SHAPE_BOOLEAN }, { "progress", SHAPE_POINTS },
  { "live", SHAPE_LIVE }, { "samples", SHAPE_OBJECT, samples_rules },
  { "verdicts", SHAPE_ARRAY, verdict_object_rules }, { NULL }
};
static const Rule os_rules[] = {
  { "id", SHAPE_STRING }, { "version_id", SHAPE_STRING }, { "codename", SHAPE_STRING },
  { "pretty_name", SHAPE_STRING }, { NULL }
};
static const Rule pc_rules[] = {
  { "hostname", SHAPE_STRING }, { "machine_id_sha256", SHAPE_STRING },
  { "dmi_vendor", SHAPE_STRING }, { "dmi_product", SHAPE_STRING }, { "dmi_serial", SHAPE_STRING },
  { "cpu_model", SHAPE_STRING }, { "cpu_count", SHAPE_NUMBER }, { "mem_total_kb", SHAPE_NUMBER },
  { "mem_available_kb", SHAPE_NUMBER }, { "kernel_release", SHAPE_STRING },
  { "kernel_version", SHAPE_STRING }, { "preempt_rt", SHAPE_BOOLEAN },
  { "preempt_model", SHAPE_STRING }, { "os", SHAPE_OBJECT, os_rules }, { NULL }
};
static const Rule profile_rules[] = {
  { "id", SHAPE_STRING }, { "version", SHAPE_NUMBER }, { "name", SHAPE_STRING },
  { "description", SHAPE_STRING }, { "network_kind", SHAPE_STRING }, { "source", SHAPE_STRING },
  { "tests", SHAPE_OBJECT }, { NULL }
};
static const Rule network_rules[] = {
  { "iface", SHAPE_STRING }, { "kind", SHAPE_STRING }, { "speed_mbps", SHAPE_NUMBER },
  { "usb", SHAPE_BOOLEAN }, { "ssid", SHAPE_STRING }, { "signal_pct", SHAPE_NUMBER }, { NULL }
};
static const Rule peer_rules[] = {
  { "address", SHAPE_STRING }, { "kind", SHAPE_STRING }, { "pairing_code", SHAPE_BOOLEAN },
  { "latency_port", SHAPE_NUMBER }, { "bandwidth_port", SHAPE_NUMBER }, { NULL }
};
static const Rule training_rules[] = {
  { "kind", SHAPE_STRING }, { "delay_ms", SHAPE_NUMBER }, { "jitter_ms", SHAPE_NUMBER },
  { "loss_pct", SHAPE_NUMBER }, { "bloat_ms", SHAPE_NUMBER }, { NULL }
};
static const Rule audit_check_rules[] = { { "id", SHAPE_STRING }, { "status", SHAPE_STRING }, { NULL } };
static const Rule audit_rules[] = { { "checks", SHAPE_ARRAY, audit_check_rules }, { NULL } };
static const Rule net_audit_check_rules[] = {
  { "id", SHAPE_STRING }, { "title", SHAPE_STRING }, { "status", SHAPE_STRING },
  { "found", SHAPE_STRING }, { "recommended", SHAPE_STRING }, { "advice", SHAPE_STRING },
  { "fix", SHAPE_STRING }, { NULL }
};
static const Rule net_audit_rules[] = {
  { "iface", SHAPE_STRING }, { "checks", SHAPE_ARRAY, net_audit_check_rules }, { NULL }
};
static const Rule verdict_rules[] = {
  { "overall", SHAPE_STRING }, { "warnings", SHAPE_NUMBER }, { "counts", SHAPE_OBJECT },
  { "criteria", SHAPE_ARRAY, verdict_object_rules }, { NULL }
};
static const Rule cause_rules[] = {
  { "id", SHAPE_STRING }, { "source", SHAPE_STRING }, { "text", SHAPE_STRING }, { NULL }
};
static const Rule advice_rules[] = {
  { "key", SHAPE_STRING }, { "metric", SHAPE_STRING }, { "verdict", SHAPE_STRING },
  { "summary", SHAPE_STRING }, { "causes", SHAPE_ARRAY, cause_rules }, { "fix", SHAPE_STRING },
  { "text", SHAPE_STRING }, { NULL }
};
static const Rule previous_rules[] = {
  { "id", SHAPE_STRING }, { "dir", SHAPE_STRING }, { "created_at", SHAPE_STRING },
  { "profile_id", SHAPE_STRING }, { NULL }
};
static const Rule metric_rules[] = {
  { "key", SHAPE_STRING }, { "metric", SHAPE_STRING }, { "label", SHAPE_STRING },
  { "unit", SHAPE_STRING }, { "before", SHAPE_NUMBER }, { "after", SHAPE_NUMBER },
  { "delta", SHAPE_NUMBER }, { "before_verdict", SHAPE_STRING },
  { "after_verdict", SHAPE_STRING }, { NULL }
};
static const Rule audit_change_rules[] = {
  { "id", SHAPE_STRING }, { "title", SHAPE_STRING }, { "before", SHAPE_STRING },
  { "after", SHAPE_STRING }, { "before_status", SHAPE_STRING }, { "after_status", SHAPE_STRING },
  { NULL }
};
static const Rule comparison_rules[] = {
  { "previous", SHAPE_OBJECT, previous_rules }, { "metrics", SHAPE_ARRAY, metric_rules },
  { "audit_changes", SHAPE_ARRAY, audit_change_rules }, { NULL }
};
static const Rule session_rules[] = {
  { "format", SHAPE_STRING }, { "app_version", SHAPE_STRING }, { "id", SHAPE_STRING },
  { "state", SHAPE_STRING }, { "created_at", SHAPE_STRING }, { "finished_at", SHAPE_STRING },
  { "elapsed_s", SHAPE_NUMBER }, { "operator", SHAPE_NAME }, { "customer", SHAPE_NAME },
  { "site", SHAPE_NAME }, { "quick", SHAPE_BOOLEAN }, { "pc", SHAPE_OBJECT, pc_rules },
  { "profile", SHAPE_OBJECT, profile_rules }, { "network", SHAPE_OBJECT, network_rules },
  { "peer", SHAPE_OBJECT, peer_rules }, { "training", SHAPE_OBJECT, training_rules },
  { "audit", SHAPE_OBJECT, audit_rules }, { "network_audit", SHAPE_OBJECT, net_audit_rules },
  { "notes", SHAPE_ARRAY, note_rules },
  { "only", SHAPE_ARRAY, NULL, SHAPE_STRING }, { "steps", SHAPE_ARRAY, step_rules },
  { "verdict", SHAPE_OBJECT, verdict_rules }, { "advice", SHAPE_ARRAY, advice_rules },
  { "comparison", SHAPE_OBJECT, comparison_rules }, { NULL }
};

static const char *
shape_name (Shape shape)
{
  switch (shape)
    {
    case SHAPE_OBJECT:
      return _("an object");
    case SHAPE_ARRAY:
      return _("a list");
    case SHAPE_STRING:
    case SHAPE_NAME:
      return _("text");
    case SHAPE_INT:
    case SHAPE_INT64:
      return _("a whole number");
    case SHAPE_BOOLEAN:
      return _("true or false");
    case SHAPE_POINTS:
      return _("a list of [time, fraction] pairs");
    case SHAPE_LIVE:
      return _("a list of [time, object] pairs");
    case SHAPE_NUMBER:
    case SHAPE_ANY:
    default:
      return _("a number");
    }
}

static const char *
node_shape_name (JsonNode *node)
{
  GType type = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;

  if (JSON_NODE_HOLDS_OBJECT (node))
    return _("an object");
  if (JSON_NODE_HOLDS_ARRAY (node))
    return _("a list");
  if (JSON_NODE_HOLDS_NULL (node))
    return _("null");
  if (type == G_TYPE_STRING)
    return _("text");
  if (type == G_TYPE_BOOLEAN)
    return _("true or false");
  if (type == G_TYPE_DOUBLE)
    return _("a fractional or very large number");
  return _("a number");
}

static gboolean
shape_fail (const char  *path,
            JsonNode    *node,
            Shape        expected,
            GError     **error)
{
  if (node == NULL)
    return check_fail (error, g_strdup_printf (_("the session has no “%s” (%s expected)."), path,
                                               shape_name (expected)));
  return check_fail (error, g_strdup_printf (_("the session's “%s” is %s where %s is expected."),
                                             path, node_shape_name (node), shape_name (expected)));
}

static gboolean
holds_type (JsonNode *node,
            GType     type)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == type;
}

/* A [number, number] or [number, object] pair. */
static gboolean
is_pair (JsonNode *node,
         gboolean  second_is_object)
{
  JsonArray *pair;
  JsonNode *second;

  if (!JSON_NODE_HOLDS_ARRAY (node) || json_array_get_length (json_node_get_array (node)) != 2)
    return FALSE;
  pair = json_node_get_array (node);
  second = json_array_get_element (pair, 1);
  return (holds_type (json_array_get_element (pair, 0), G_TYPE_INT64)
          || holds_type (json_array_get_element (pair, 0), G_TYPE_DOUBLE))
         && (second_is_object ? JSON_NODE_HOLDS_OBJECT (second)
                              : holds_type (second, G_TYPE_INT64) || holds_type (second, G_TYPE_DOUBLE));
}

static gboolean
has_shape (JsonNode *node,
           Shape     shape)
{
  switch (shape)
    {
    case SHAPE_OBJECT:
      return JSON_NODE_HOLDS_OBJECT (node);
    case SHAPE_ARRAY:
    case SHAPE_POINTS:
    case SHAPE_LIVE:
      return JSON_NODE_HOLDS_ARRAY (node);
    case SHAPE_STRING:
    case SHAPE_NAME:
      return holds_type (node, G_TYPE_STRING);
    case SHAPE_NUMBER:
      return holds_type (node, G_TYPE_INT64) || holds_type (node, G_TYPE_DOUBLE);
    case SHAPE_INT:
      return holds_type (node, G_TYPE_INT64) && json_node_get_int (node) >= G_MININT
             && json_node_get_int (node) <= G_MAXINT;
    case SHAPE_INT64:
      return holds_type (node, G_TYPE_INT64);
    case SHAPE_BOOLEAN:
      return holds_type (node, G_TYPE_BOOLEAN);
    case SHAPE_ANY:
    default:
      return TRUE;
    }
}

static gboolean check_members (JsonObject *object, const char *prefix, const Rule *rules,
                               GError **error);

/* The elements of a list member: objects following rule->members, or values of rule->element,
 * or [time, …] pairs. */
static gboolean
check_elements (JsonArray   *array,
                const char  *path,
                const Rule  *rule,
                GError     **error)
{
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      g_autofree char *at = g_strdup_printf ("%s[%u]", path, i);
      g_autofree char *prefix = g_strconcat (at, ".", NULL);
      Shape wanted = rule->members != NULL ? SHAPE_OBJECT : rule->element;

      if (rule->shape == SHAPE_POINTS || rule->shape == SHAPE_LIVE)
        {
          if (!is_pair (element, rule->shape == SHAPE_LIVE))
            return check_fail (error, g_strdup_printf (_("the session's “%s” is not a [time, %s] pair."),
                                                       at, rule->shape == SHAPE_LIVE ? _("object") : _("fraction")));
          continue;
        }
      if (wanted != SHAPE_ANY && !has_shape (element, wanted))
        return shape_fail (at, element, wanted, error);
      if (rule->members != NULL && !check_members (json_node_get_object (element), prefix, rule->members, error))
        return FALSE;
    }
  return TRUE;
}

/* The sample lists are read side by side: they must be as long as each other. */
static gboolean
check_samples (JsonObject  *samples,
               const char  *path,
               GError     **error)
{
  static const char *const lists[] = { "value_ns", "channel" };
  JsonNode *t = json_object_get_member (samples, "t_ns");
  guint n = t != NULL && JSON_NODE_HOLDS_ARRAY (t) ? json_array_get_length (json_node_get_array (t)) : 0;

  for (guint i = 0; i < G_N_ELEMENTS (lists); i++)
    {
      JsonNode *list = json_object_get_member (samples, lists[i]);
      guint m = list != NULL && JSON_NODE_HOLDS_ARRAY (list) ? json_array_get_length (json_node_get_array (list)) : 0;
      if (m != n)
        return check_fail (error, g_strdup_printf (_("the session's “%s%s” has %u values where “%st_ns” has %u."),
                                                   path, lists[i], m, path, n));
    }
  return TRUE;
}

static gboolean
check_members (JsonObject  *object,
               const char  *prefix,
               const Rule  *rules,
               GError     **error)
{
  for (guint i = 0; rules[i].key != NULL; i++)
    {
      JsonNode *n = json_object_get_member (object, rules[i].key);
      g_autofree char *path = g_strconcat (prefix, rules[i].key, NULL);
      g_autofree char *inner = g_strconcat (path, ".", NULL);

      if (n == NULL || JSON_NODE_HOLDS_NULL (n))
        continue;
      if (!has_shape (n, rules[i].shape))
        return shape_fail (path, n, rules[i].shape, error);
      if (rules[i].shape == SHAPE_NAME
          && !check_string (path, json_node_get_string (n), QF_SESSION_MAX_NAME_CHARS, FALSE, error))
        return FALSE;
      if (JSON_NODE_HOLDS_ARRAY (n) && !check_elements (json_node_get_array (n), path, &rules[i], error))
        return FALSE;
      if (JSON_NODE_HOLDS_OBJECT (n) && rules[i].members != NULL
          && !check_members (json_node_get_object (n), inner, rules[i].members, error))
        return FALSE;
      if (rules[i].members == samples_rules && !check_samples (json_node_get_object (n), inner, error))
        return FALSE;
    }
  return TRUE;
}

/* "format" and "schema_version": the version must be a whole number this Qualify knows. */
static gboolean
check_format (JsonObject  *root,
              GError     **error)
{
  JsonNode *format = json_object_get_member (root, "format");
  JsonNode *version = json_object_get_member (root, "schema_version");

  if (format == NULL || !holds_type (format, G_TYPE_STRING)
      || g_strcmp0 (json_node_get_string (format), "qualify-session") != 0)
    return check_fail (error, g_strdup (_("its “format” is not “qualify-session”.")));
  if (version == NULL || JSON_NODE_HOLDS_NULL (version))
    return TRUE;
  if (holds_type (version, G_TYPE_INT64) && json_node_get_int (version) > QF_SESSION_SCHEMA_VERSION
      && json_node_get_int (version) < 1000000)
    {
      g_set_error (error, QF_SESSION_ERROR, QF_SESSION_ERROR_FORMAT,
                   _("the session was written by a newer Qualify (schema %lld). Update Qualify to open it."),
                   (long long) json_node_get_int (version));
      return FALSE;
    }
  if (!holds_type (version, G_TYPE_INT64) || json_node_get_int (version) < 1
      || json_node_get_int (version) > QF_SESSION_SCHEMA_VERSION)
    return check_fail (error, g_strdup_printf (_("the session's “schema_version” is not a schema "
                                                 "version Qualify knows (a whole number, 1 to %d)."),
                                               QF_SESSION_SCHEMA_VERSION));
  return TRUE;
}

gboolean
qf_session_check (JsonObject  *root,
                  gboolean     complete,
                  GError     **error)
{
  static const Rule required[] = {
    { "id", SHAPE_STRING }, { "profile", SHAPE_OBJECT }, { "steps", SHAPE_ARRAY }, { NULL }
  };
  g_autoptr(GString) path = g_string_new (NULL);
  g_autoptr(JsonNode) node = NULL;

  g_return_val_if_fail (root != NULL, FALSE);

  if (!check_format (root, error))
    return FALSE;
  for (guint i = 0; complete && required[i].key != NULL; i++)
    {
      JsonNode *n = json_object_get_member (root, required[i].key);
      if (n == NULL || JSON_NODE_HOLDS_NULL (n))
        return shape_fail (required[i].key, NULL, required[i].shape, error);
    }
  if (!check_members (root, "", session_rules, error))
    return FALSE;
  node = json_node_init_object (json_node_alloc (), root);
  return check_tree_text (node, path, error);
}
