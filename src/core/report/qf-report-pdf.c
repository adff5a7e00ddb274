/* qf-report-pdf.c — the report as an A4 PDF with cairo and pango (src/core).
 *
 * Lays the blocks out twice: once to count the pages (nothing painted), once to paint them with
 * "Page N of M" in every footer and the PC's name and date in every header. Text is real text in
 * embedded Noto Sans CJK subsets (selectable, extractable by pdftotext); plots are vectors from
 * qf-plot. The session JSON is attached and the file signed by qf-pdf-sign's incremental update.
 */
#include "config.h"

#include <cairo-pdf.h>
#include <pango/pangocairo.h>
#include <string.h>

#include "qf-i18n.h"
#include "qf-pdf-sign.h"
#include "qf-report-private.h"

#define TR(s) _qf_report_tr (ctx->report, s)

#define PAGE_W 595.276
#define PAGE_H 841.89
#define MARGIN_X 48.0
#define CONTENT_TOP 68.0
#define CONTENT_BOTTOM (PAGE_H - 52.0)
#define CONTENT_W (PAGE_W - 2 * MARGIN_X)
#define FIGURE_H 200.0
#define CELL_PAD 3.0
/* The tallest table cell: a row never needs more than a page. Longer cells end in "…" (the HTML
 * and the embedded session hold the whole text). */
#define CELL_MAX_H ((CONTENT_BOTTOM - CONTENT_TOP) * 0.75)

/* The signature box on the sign-off page. */
#define SIG_BOX_W (CONTENT_W * 0.68)
#define SIG_PAD 8.0
#define SIG_LABEL_W 96.0

/* The visible signature: what its box says, fixed before the pages are laid out (both passes
 * must agree), and where the painting pass put the box. */
typedef struct
{
  char             *name;         /* "Li Wei, Example Robotics" (qf_cert_signer_label) */
  char             *fingerprint;  /* the certificate's SHA-256 in groups of four, two lines */
  char             *signed_at;    /* the signature's signing time, e.g. "2026-11-30 15:02:03 UTC" */
  QfPdfSignatureBox box;
  gboolean          placed;
} SignatureLook;

typedef struct
{
  QfReport      *report;
  cairo_t       *cr;
  gboolean       paint;
  int            page;
  int            n_pages;
  gdouble        y;
  SignatureLook *sig;      /* NULL for an unsigned report */
} Ctx;

typedef struct
{
  gdouble r, g, b;
} Rgb;

static Rgb
verdict_ink (const char *css)
{
  if (g_strcmp0 (css, "pass") == 0)
    return (Rgb) { 0.10, 0.45, 0.20 };
  if (g_strcmp0 (css, "fail") == 0)
    return (Rgb) { 0.72, 0.10, 0.10 };
  if (g_strcmp0 (css, "warn") == 0)
    return (Rgb) { 0.62, 0.40, 0.00 };
  if (g_strcmp0 (css, "invalid") == 0)
    return (Rgb) { 0.45, 0.20, 0.55 };
  return (Rgb) { 0.35, 0.35, 0.35 };
}

static Rgb
verdict_tint (const char *css)
{
  if (g_strcmp0 (css, "pass") == 0)
    return (Rgb) { 0.91, 0.97, 0.92 };
  if (g_strcmp0 (css, "fail") == 0)
    return (Rgb) { 0.99, 0.90, 0.90 };
  if (g_strcmp0 (css, "warn") == 0)
    return (Rgb) { 1.00, 0.96, 0.85 };
  if (g_strcmp0 (css, "invalid") == 0)
    return (Rgb) { 0.95, 0.91, 0.97 };
  return (Rgb) { 0.95, 0.95, 0.95 };
}

static PangoLayout *
make_layout (Ctx        *ctx,
             const char *text,
             const char *family,
             gdouble     size,
             gboolean    bold,
             gdouble     width)
{
  PangoLayout *layout = pango_cairo_create_layout (ctx->cr);
  PangoFontDescription *desc = pango_font_description_new ();

  pango_font_description_set_family (desc, family);
  pango_font_description_set_absolute_size (desc, size * PANGO_SCALE);
  pango_font_description_set_weight (desc, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
  pango_layout_set_font_description (layout, desc);
  pango_font_description_free (desc);
  if (width > 0)
    {
      pango_layout_set_width (layout, (int) (width * PANGO_SCALE));
      pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
    }
  pango_layout_set_text (layout, text ? text : "", -1);
  return layout;
}

static gdouble
layout_height (PangoLayout *layout)
{
  int w, h;
  pango_layout_get_size (layout, &w, &h);
  return (gdouble) h / PANGO_SCALE;
}

static gdouble
layout_width (PangoLayout *layout)
{
  int w, h;
  pango_layout_get_size (layout, &w, &h);
  return (gdouble) w / PANGO_SCALE;
}

static void
show (Ctx         *ctx,
      PangoLayout *layout,
      gdouble      x,
      gdouble      y,
      Rgb          ink)
{
  if (!ctx->paint)
    return;
  cairo_set_source_rgb (ctx->cr, ink.r, ink.g, ink.b);
  cairo_move_to (ctx->cr, x, y);
  pango_cairo_show_layout (ctx->cr, layout);
}

/* One line of text; max_width > 0 cuts it there with "…" (page furniture, whose place is
 * fixed). */
static void
text_at (Ctx        *ctx,
         const char *text,
         gdouble     size,
         gboolean    bold,
         gdouble     x,
         gdouble     y,
         gdouble     align,  /* 0 left, 0.5 centre, 1 right */
         gdouble     max_width,
         Rgb         ink)
{
  g_autoptr(PangoLayout) layout = make_layout (ctx, text, QF_REPORT_FONT, size, bold, 0);

  if (max_width > 0 && layout_width (layout) > max_width)
    {
      pango_layout_set_width (layout, (int) (max_width * PANGO_SCALE));
      pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_END);
    }
  show (ctx, layout, x - align * layout_width (layout), y, ink);
}

static void
page_furniture (Ctx *ctx)
{
  const Rgb grey = { 0.35, 0.35, 0.35 };
  g_autofree char *page = NULL;
  const char *sid = NULL;
  JsonNode *id = json_object_get_member (ctx->report->session, "id");

  if (!ctx->paint)
    return;
  text_at (ctx, ctx->report->header_left, 8, TRUE, MARGIN_X, 30, 0, CONTENT_W * 0.68, grey);
  text_at (ctx, ctx->report->header_right, 8, FALSE, PAGE_W - MARGIN_X, 30, 1, CONTENT_W * 0.3, grey);
  cairo_set_source_rgb (ctx->cr, 0.6, 0.6, 0.6);
  cairo_set_line_width (ctx->cr, 0.6);
  cairo_move_to (ctx->cr, MARGIN_X, 46);
  cairo_line_to (ctx->cr, PAGE_W - MARGIN_X, 46);
  cairo_stroke (ctx->cr);
  cairo_move_to (ctx->cr, MARGIN_X, PAGE_H - 40);
  cairo_line_to (ctx->cr, PAGE_W - MARGIN_X, PAGE_H - 40);
  cairo_stroke (ctx->cr);

  /* The format comes from our own catalogue, never from the session. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  page = g_strdup_printf (TR (N_("Page %d of %d")), ctx->page, ctx->n_pages);
#pragma GCC diagnostic pop
  text_at (ctx, page, 8, FALSE, PAGE_W / 2, PAGE_H - 34, 0.5, CONTENT_W * 0.3, grey);
  text_at (ctx, "Qualify " PACKAGE_VERSION, 7, FALSE, MARGIN_X, PAGE_H - 34, 0, CONTENT_W * 0.3, grey);
  if (id != NULL && JSON_NODE_TYPE (id) == JSON_NODE_VALUE && json_node_get_value_type (id) == G_TYPE_STRING)
    sid = json_node_get_string (id);
  if (sid != NULL)
    text_at (ctx, sid, 7, FALSE, PAGE_W - MARGIN_X, PAGE_H - 34, 1, CONTENT_W * 0.3, grey);
}

static void
new_page (Ctx *ctx)
{
  if (ctx->page > 0 && ctx->paint)
    cairo_show_page (ctx->cr);
  ctx->page++;
  ctx->y = CONTENT_TOP;
  page_furniture (ctx);
}

static void
ensure (Ctx    *ctx,
        gdouble height)
{
  if (ctx->y + height > CONTENT_BOTTOM && ctx->y > CONTENT_TOP + 1)
    new_page (ctx);
}

/* Paints layout at x from ctx->y down, line by line, going on on a new page where the next
 * line would reach the footer: text taller than a page stays inside the content area. */
static void
flow (Ctx         *ctx,
      PangoLayout *layout,
      gdouble      x,
      Rgb          ink)
{
  PangoLayoutIter *iter = pango_layout_get_iter (layout);
  gdouble origin = ctx->y, offset = 0;

  do
    {
      PangoRectangle line;
      gdouble top, height;

      pango_layout_iter_get_line_extents (iter, NULL, &line);
      top = (gdouble) line.y / PANGO_SCALE;
      height = (gdouble) line.height / PANGO_SCALE;
      if (origin + top - offset + height > CONTENT_BOTTOM && origin + top - offset > CONTENT_TOP + 1)
        {
          new_page (ctx);
          origin = ctx->y;
          offset = top;
        }
      if (ctx->paint)
        {
          cairo_set_source_rgb (ctx->cr, ink.r, ink.g, ink.b);
          cairo_move_to (ctx->cr, x + (gdouble) line.x / PANGO_SCALE,
                         origin - offset + (gdouble) pango_layout_iter_get_baseline (iter) / PANGO_SCALE);
          pango_cairo_show_layout_line (ctx->cr, pango_layout_iter_get_line_readonly (iter));
        }
      ctx->y = origin + top - offset + height;
    }
  while (pango_layout_iter_next_line (iter));
  pango_layout_iter_free (iter);
}

static void
paragraph (Ctx        *ctx,
           const char *text,
           gdouble     size,
           gboolean    bold,
           Rgb         ink,
           gdouble     space_after)
{
  g_autoptr(PangoLayout) layout = make_layout (ctx, text, QF_REPORT_FONT, size, bold, CONTENT_W);
  gdouble h = layout_height (layout);

  ensure (ctx, h);
  if (ctx->y + h > CONTENT_BOTTOM)
    flow (ctx, layout, MARGIN_X, ink);
  else
    {
      show (ctx, layout, MARGIN_X, ctx->y, ink);
      ctx->y += h;
    }
  ctx->y += space_after;
}

static void
fill_rect (Ctx    *ctx,
           gdouble x,
           gdouble y,
           gdouble w,
           gdouble h,
           Rgb     c)
{
  if (!ctx->paint)
    return;
  cairo_set_source_rgb (ctx->cr, c.r, c.g, c.b);
  cairo_rectangle (ctx->cr, x, y, w, h);
  cairo_fill (ctx->cr);
}

/* A column no wider than this share of the content width is "narrow"; so is a verdict column. */
#define NARROW_COLUMN 0.2

static gboolean
is_narrow (QfBlock *b,
           guint    c,
           gdouble  width)
{
  return width <= CONTENT_W * NARROW_COLUMN || (b->verdict_col >= 0 && c == (guint) b->verdict_col);
}

/* Column widths from the cells' natural widths, fitted to the content width. */
static void
column_widths (Ctx       *ctx,
               QfBlock   *b,
               guint      n_cols,
               gdouble   *widths)
{
  gdouble total = 0, fixed = 0;

  for (guint c = 0; c < n_cols; c++)
    {
      gdouble nat = 30;
      if (b->header != NULL && c < b->header->len)
        {
          g_autoptr(PangoLayout) l = make_layout (ctx, g_ptr_array_index (b->header, c), QF_REPORT_FONT, 8.5, TRUE, 0);
          nat = MAX (nat, layout_width (l));
        }
      for (guint r = 0; r < b->rows->len; r++)
        {
          GPtrArray *row = g_ptr_array_index (b->rows, r);
          if (c < row->len)
            {
              /* a verdict is printed bold */
              g_autoptr(PangoLayout) l = make_layout (ctx, g_ptr_array_index (row, c), QF_REPORT_FONT, 8.5,
                                                      b->verdict_col >= 0 && c == (guint) b->verdict_col, 0);
              nat = MAX (nat, layout_width (l));
            }
        }
      widths[c] = MIN (nat + 2 * CELL_PAD, CONTENT_W * 0.55);
      total += widths[c];
    }
  /* In a table of verdicts, narrow columns (a figure, a limit, the verdict) keep their natural
   * width, so that each of their cells stays on one line (as `verify` reads the printed rows);
   * the wide ones (names) take what is left and wrap. */
  for (guint c = 0; c < n_cols; c++)
    if (is_narrow (b, c, widths[c]))
      fixed += widths[c];
  if (b->verdict_col >= 0 && total > CONTENT_W && fixed < CONTENT_W * 0.6 && total - fixed > 0)
    {
      for (guint c = 0; c < n_cols; c++)
        if (!is_narrow (b, c, widths[c]))
          widths[c] = widths[c] * (CONTENT_W - fixed) / (total - fixed);
      return;
    }
  for (guint c = 0; c < n_cols; c++)
    widths[c] = widths[c] * CONTENT_W / total;
}

/* A table cell's text, wrapped in its column and at most CELL_MAX_H tall. */
static PangoLayout *
cell_layout (Ctx        *ctx,
             const char *text,
             gboolean    bold,
             gdouble     width)
{
  PangoLayout *l = make_layout (ctx, text, QF_REPORT_FONT, 8.5, bold, width);

  if (layout_height (l) > CELL_MAX_H)
    {
      pango_layout_set_height (l, (int) (CELL_MAX_H * PANGO_SCALE));
      pango_layout_set_ellipsize (l, PANGO_ELLIPSIZE_END);
    }
  return l;
}

static gdouble
row_height (Ctx       *ctx,
            GPtrArray *cells,
            gdouble   *widths,
            gboolean   bold)
{
  gdouble h = 0;

  for (guint c = 0; c < cells->len; c++)
    {
      g_autoptr(PangoLayout) l = cell_layout (ctx, g_ptr_array_index (cells, c), bold,
                                              widths[c] - 2 * CELL_PAD);
      h = MAX (h, layout_height (l));
    }
  return h + 2 * CELL_PAD;
}

static void
draw_row (Ctx        *ctx,
          GPtrArray  *cells,
          gdouble    *widths,
          gboolean    header,
          const char *css,
          int         verdict_col)
{
  gdouble h = row_height (ctx, cells, widths, header), x = MARGIN_X;
  const Rgb black = { 0.1, 0.1, 0.1 };

  if (header)
    fill_rect (ctx, MARGIN_X, ctx->y, CONTENT_W, h, (Rgb) { 0.88, 0.88, 0.88 });
  else if (css != NULL)
    fill_rect (ctx, MARGIN_X, ctx->y, CONTENT_W, h, verdict_tint (css));
  for (guint c = 0; c < cells->len; c++)
    {
      gboolean is_verdict = !header && (int) c == verdict_col && css != NULL;
      g_autoptr(PangoLayout) l = cell_layout (ctx, g_ptr_array_index (cells, c), header || is_verdict,
                                              widths[c] - 2 * CELL_PAD);
      show (ctx, l, x + CELL_PAD, ctx->y + CELL_PAD, is_verdict ? verdict_ink (css) : black);
      x += widths[c];
    }
  if (ctx->paint)
    {
      cairo_set_source_rgb (ctx->cr, 0.7, 0.7, 0.7);
      cairo_set_line_width (ctx->cr, 0.4);
      cairo_move_to (ctx->cr, MARGIN_X, ctx->y + h);
      cairo_line_to (ctx->cr, MARGIN_X + CONTENT_W, ctx->y + h);
      cairo_stroke (ctx->cr);
    }
  ctx->y += h;
}

/* A key–value row: no rule, no tint, the key in bold grey. */
static void
key_value_row (Ctx       *ctx,
               GPtrArray *row,
               gdouble   *widths,
               gdouble    h)
{
  gdouble x = MARGIN_X;
  const Rgb black = { 0.1, 0.1, 0.1 }, grey = { 0.3, 0.3, 0.3 };

  for (guint c = 0; c < row->len; c++)
    {
      g_autoptr(PangoLayout) l = cell_layout (ctx, g_ptr_array_index (row, c), c == 0,
                                              widths[c] - 2 * CELL_PAD);
      show (ctx, l, x + CELL_PAD, ctx->y + CELL_PAD, c == 0 ? grey : black);
      x += widths[c];
    }
  ctx->y += h;
}

static void
table (Ctx     *ctx,
       QfBlock *b)
{
  guint n_cols = b->header != NULL && b->header->len > 0 ? b->header->len
                 : (b->rows->len > 0 ? ((GPtrArray *) g_ptr_array_index (b->rows, 0))->len : 0);
  g_autofree gdouble *widths = NULL;

  if (n_cols == 0)
    return;
  widths = g_new0 (gdouble, n_cols);
  if (b->kind == QF_BLOCK_KEY_VALUE)
    {
      widths[0] = CONTENT_W * 0.3;
      for (guint c = 1; c < n_cols; c++)
        widths[c] = CONTENT_W * 0.7 / (n_cols - 1);
    }
  else
    column_widths (ctx, b, n_cols, widths);

  if (b->header != NULL && b->header->len > 0)
    {
      ensure (ctx, row_height (ctx, b->header, widths, TRUE) + (b->rows->len > 0
              ? row_height (ctx, g_ptr_array_index (b->rows, 0), widths, FALSE) : 0));
      draw_row (ctx, b->header, widths, TRUE, NULL, -1);
    }
  for (guint r = 0; r < b->rows->len; r++)
    {
      GPtrArray *row = g_ptr_array_index (b->rows, r);
      gdouble h = row_height (ctx, row, widths, b->kind == QF_BLOCK_KEY_VALUE);
      if (ctx->y + h > CONTENT_BOTTOM)
        {
          new_page (ctx);
          if (b->header != NULL && b->header->len > 0)
            draw_row (ctx, b->header, widths, TRUE, NULL, -1);
        }
      if (b->kind == QF_BLOCK_KEY_VALUE)
        key_value_row (ctx, row, widths, h);
      else
        draw_row (ctx, row, widths, FALSE, g_ptr_array_index (b->row_css, r), b->verdict_col);
    }
  ctx->y += 8;
}

static void
verdict_box (Ctx     *ctx,
             QfBlock *b)
{
  g_autoptr(PangoLayout) big = make_layout (ctx, b->text, QF_REPORT_FONT, 26, TRUE, CONTENT_W - 28);
  g_autoptr(PangoLayout) small = make_layout (ctx, b->text2, QF_REPORT_FONT, 9.5, FALSE, CONTENT_W - 28);
  gdouble h = layout_height (big) + layout_height (small) + 20;
  Rgb ink = verdict_ink (b->css);

  ensure (ctx, h);
  fill_rect (ctx, MARGIN_X, ctx->y, CONTENT_W, h, verdict_tint (b->css));
  if (ctx->paint)
    {
      cairo_set_source_rgb (ctx->cr, ink.r, ink.g, ink.b);
      cairo_set_line_width (ctx->cr, 2);
      cairo_rectangle (ctx->cr, MARGIN_X + 1, ctx->y + 1, CONTENT_W - 2, h - 2);
      cairo_stroke (ctx->cr);
    }
  show (ctx, small, MARGIN_X + 14, ctx->y + 8, (Rgb) { 0.25, 0.25, 0.25 });
  show (ctx, big, MARGIN_X + 14, ctx->y + 10 + layout_height (small), ink);
  ctx->y += h + 12;
}

static void
note (Ctx     *ctx,
      QfBlock *b)
{
  g_autoptr(PangoLayout) l = make_layout (ctx, b->text, QF_REPORT_FONT, 9.5, b->css != NULL, CONTENT_W - 16);
  gdouble h = layout_height (l) + 8;
  Rgb ink = b->css ? verdict_ink (b->css) : (Rgb) { 0.15, 0.3, 0.55 };

  if (h > CONTENT_BOTTOM - CONTENT_TOP)
    {
      /* Taller than a page: its lines flow on, without the box. */
      flow (ctx, l, MARGIN_X + 10, (Rgb) { 0.1, 0.1, 0.1 });
      ctx->y += 6;
      return;
    }
  ensure (ctx, h);
  fill_rect (ctx, MARGIN_X, ctx->y, CONTENT_W, h, b->css ? verdict_tint (b->css) : (Rgb) { 0.92, 0.95, 0.99 });
  fill_rect (ctx, MARGIN_X, ctx->y, 3, h, ink);
  show (ctx, l, MARGIN_X + 10, ctx->y + 4, (Rgb) { 0.1, 0.1, 0.1 });
  ctx->y += h + 6;
}

static void
code (Ctx     *ctx,
      QfBlock *b)
{
  g_autoptr(PangoLayout) l = make_layout (ctx, b->text, QF_REPORT_MONO_FONT, 8.5, FALSE, CONTENT_W - 12);
  gdouble h = layout_height (l) + 8;

  if (h > CONTENT_BOTTOM - CONTENT_TOP)
    {
      flow (ctx, l, MARGIN_X + 6, (Rgb) { 0.1, 0.1, 0.1 });
      ctx->y += 8;
      return;
    }
  ensure (ctx, h);
  fill_rect (ctx, MARGIN_X, ctx->y, CONTENT_W, h, (Rgb) { 0.94, 0.94, 0.94 });
  show (ctx, l, MARGIN_X + 6, ctx->y + 4, (Rgb) { 0.1, 0.1, 0.1 });
  ctx->y += h + 8;
}

static void
figure (Ctx     *ctx,
        QfBlock *b)
{
  ensure (ctx, FIGURE_H);
  if (ctx->paint)
    {
      cairo_save (ctx->cr);
      cairo_translate (ctx->cr, MARGIN_X, ctx->y);
      cairo_rectangle (ctx->cr, 0, 0, CONTENT_W, FIGURE_H);
      cairo_clip (ctx->cr);
      _qf_report_draw_figure (ctx->report, b, ctx->cr, CONTENT_W, FIGURE_H);
      cairo_restore (ctx->cr);
    }
  ctx->y += FIGURE_H + 10;
}

/* A caption and its value side by side in the signature box; moves *y below the taller. */
static void
box_row (Ctx         *ctx,
         PangoLayout *label,
         PangoLayout *value,
         gdouble      x,
         gdouble     *y)
{
  show (ctx, label, x, *y + 1, (Rgb) { 0.35, 0.35, 0.35 });
  show (ctx, value, x + SIG_LABEL_W, *y, (Rgb) { 0.1, 0.1, 0.1 });
  *y += MAX (layout_height (label) + 1, layout_height (value)) + 2;
}

/* The visible signature at top: who signed (from the certificate), the certificate's
 * fingerprint and the signing time, on a tint; the PDF widget's frame is drawn over it by the
 * reader. Records the box in PDF user space when painting. Returns its height. */
static gdouble
signature_box (Ctx    *ctx,
               gdouble top)
{
  SignatureLook *s = ctx->sig;
  gdouble inner = SIG_BOX_W - 2 * SIG_PAD, x = MARGIN_X + SIG_PAD, y, h;
  const Rgb ink = { 0.1, 0.1, 0.1 }, grey = { 0.35, 0.35, 0.35 };
  g_autoptr(PangoLayout) head = make_layout (ctx, TR (N_("Digitally signed by")), QF_REPORT_FONT, 7.5, FALSE, inner);
  g_autoptr(PangoLayout) name = make_layout (ctx, s->name, QF_REPORT_FONT, 11, TRUE, inner);
  g_autoptr(PangoLayout) fp_label = make_layout (ctx, TR (N_("Certificate SHA-256")), QF_REPORT_FONT, 7.5, FALSE, SIG_LABEL_W - 6);
  g_autoptr(PangoLayout) fp = make_layout (ctx, s->fingerprint, QF_REPORT_MONO_FONT, 8, FALSE, inner - SIG_LABEL_W);
  g_autoptr(PangoLayout) when_label = make_layout (ctx, TR (N_("Signing time")), QF_REPORT_FONT, 7.5, FALSE, SIG_LABEL_W - 6);
  g_autoptr(PangoLayout) when = make_layout (ctx, s->signed_at, QF_REPORT_FONT, 8.5, FALSE, inner - SIG_LABEL_W);
  g_autoptr(PangoLayout) check = make_layout (ctx, TR (N_("A PDF reader's signature panel or “qualify-cli verify” tells whether this signature is valid.")),
                                              QF_REPORT_FONT, 6.5, FALSE, inner);

  h = 2 * SIG_PAD + layout_height (head) + layout_height (name) + 6
      + MAX (layout_height (fp_label) + 1, layout_height (fp)) + 2
      + MAX (layout_height (when_label) + 1, layout_height (when)) + 2 + 3 + layout_height (check);
  fill_rect (ctx, MARGIN_X, top, SIG_BOX_W, h, (Rgb) { 0.93, 0.95, 0.99 });
  y = top + SIG_PAD;
  show (ctx, head, x, y, grey);
  y += layout_height (head);
  show (ctx, name, x, y, ink);
  y += layout_height (name);
  y += 6;
  box_row (ctx, fp_label, fp, x, &y);
  box_row (ctx, when_label, when, x, &y);
  show (ctx, check, x, y + 3, grey);
  if (ctx->paint)
    {
      s->box = (QfPdfSignatureBox) { ctx->page - 1, MARGIN_X, PAGE_H - (top + h),
                                     MARGIN_X + SIG_BOX_W, PAGE_H - top };
      s->placed = TRUE;
    }
  return h;
}

static gdouble
signature_box_height (Ctx *ctx)
{
  gboolean paint = ctx->paint;
  gdouble h;

  ctx->paint = FALSE;
  h = signature_box (ctx, 0);
  ctx->paint = paint;
  return h;
}

/* The name under a sign-off row's role. */
static PangoLayout *
signoff_name (Ctx       *ctx,
              GPtrArray *row)
{
  return make_layout (ctx, row->len > 1 ? g_ptr_array_index (row, 1) : "", QF_REPORT_FONT, 9.5,
                      FALSE, CONTENT_W - 4);
}

/* The first row (the installer's, see add_signoff) of a signed report holds the signature's
 * box instead of lines to sign by hand. */
static gboolean
signoff_row_boxed (Ctx  *ctx,
                   guint r)
{
  return r == 0 && ctx->sig != NULL;
}

static gdouble
signoff_row_height (Ctx     *ctx,
                    QfBlock *b,
                    guint    r)
{
  g_autoptr(PangoLayout) name = signoff_name (ctx, g_ptr_array_index (b->rows, r));
  /* A long name wraps; what follows moves down under it. */
  gdouble extra = MAX (layout_height (name) - 14, 0);

  return extra + (signoff_row_boxed (ctx, r) ? 40 + signature_box_height (ctx) + 14 : 64);
}

/* Keeps the sign-off — heading, introduction, every row — on one page, the one that carries
 * the signature box: called at a heading, it makes room for the heading, the paragraphs after
 * it and the rows when a sign-off block follows them. */
static void
keep_with_signoff (Ctx  *ctx,
                   guint first)
{
  GPtrArray *blocks = ctx->report->blocks;
  gdouble h = 0;

  for (guint i = first; i < blocks->len; i++)
    {
      QfBlock *b = g_ptr_array_index (blocks, i);
      g_autoptr(PangoLayout) l = NULL;

      if (b->kind == QF_BLOCK_SIGNOFF)
        {
          for (guint r = 0; r < b->rows->len; r++)
            h += signoff_row_height (ctx, b, r);
          ensure (ctx, h);
          return;
        }
      if ((b->kind != QF_BLOCK_HEADING || i != first) && b->kind != QF_BLOCK_PARAGRAPH)
        return;
      l = make_layout (ctx, b->text, QF_REPORT_FONT, b->kind == QF_BLOCK_HEADING ? 14 : 9.5,
                       b->kind == QF_BLOCK_HEADING, CONTENT_W);
      h += layout_height (l) + (b->kind == QF_BLOCK_HEADING ? 16 : 6);
    }
}

/* The sign-off rows: a role, the name from the session, and lines to sign by hand or the
 * signature's box. */
static void
signoff (Ctx     *ctx,
         QfBlock *b)
{
  const Rgb black = { 0.1, 0.1, 0.1 }, grey = { 0.35, 0.35, 0.35 };
  gdouble col = CONTENT_W / 3;

  for (guint r = 0; r < b->rows->len; r++)
    {
      GPtrArray *row = g_ptr_array_index (b->rows, r);
      g_autoptr(PangoLayout) name = signoff_name (ctx, row);
      gdouble extra = MAX (layout_height (name) - 14, 0);
      gboolean boxed = signoff_row_boxed (ctx, r);
      gdouble box_h;

      ensure (ctx, signoff_row_height (ctx, b, r));
      text_at (ctx, g_ptr_array_index (row, 0), 9.5, TRUE, MARGIN_X, ctx->y, 0, CONTENT_W, black);
      if (row->len > 1 && *(const char *) g_ptr_array_index (row, 1) != '\0')
        show (ctx, name, MARGIN_X + 4, ctx->y + 22, black);
      ctx->y += extra;
      if (boxed)
        {
          box_h = signature_box (ctx, ctx->y + 40);
          ctx->y += 40 + box_h + 14;
          continue;
        }
      for (guint c = 0; c < b->header->len; c++)
        {
          gdouble x = MARGIN_X + c * col;
          if (ctx->paint)
            {
              cairo_set_source_rgb (ctx->cr, 0.2, 0.2, 0.2);
              cairo_set_line_width (ctx->cr, 0.6);
              cairo_move_to (ctx->cr, x, ctx->y + 38);
              cairo_line_to (ctx->cr, x + col - 14, ctx->y + 38);
              cairo_stroke (ctx->cr);
            }
          text_at (ctx, g_ptr_array_index (b->header, c), 7.5, FALSE, x, ctx->y + 41, 0, col - 14, grey);
        }
      ctx->y += 64;
    }
}

static const Rgb heading_ink = { 0.1, 0.2, 0.35 };

static void
title (Ctx     *ctx,
       QfBlock *b)
{
  paragraph (ctx, b->text, 19, TRUE, heading_ink, 2);
  if (b->text2 != NULL)
    paragraph (ctx, b->text2, 11, FALSE, (Rgb) { 0.35, 0.35, 0.35 }, 10);
}

/* A level 2 heading is underlined; either level is kept with what follows it. */
static void
heading (Ctx     *ctx,
         QfBlock *b)
{
  ensure (ctx, b->level == 2 ? 90 : 70);
  ctx->y += b->level == 2 ? 8 : 4;
  paragraph (ctx, b->text, b->level == 2 ? 14 : 12, TRUE, heading_ink, 4);
  if (b->level == 2 && ctx->paint)
    {
      cairo_set_source_rgb (ctx->cr, heading_ink.r, heading_ink.g, heading_ink.b);
      cairo_set_line_width (ctx->cr, 0.8);
      cairo_move_to (ctx->cr, MARGIN_X, ctx->y);
      cairo_line_to (ctx->cr, MARGIN_X + CONTENT_W, ctx->y);
      cairo_stroke (ctx->cr);
    }
  ctx->y += 4;
}

static void
layout_blocks (Ctx *ctx)
{
  const Rgb black = { 0.1, 0.1, 0.1 };

  ctx->page = 0;
  new_page (ctx);
  for (guint i = 0; i < ctx->report->blocks->len; i++)
    {
      QfBlock *b = g_ptr_array_index (ctx->report->blocks, i);

      switch (b->kind)
        {
        case QF_BLOCK_TITLE:
          title (ctx, b);
          break;
        case QF_BLOCK_HEADING:
          keep_with_signoff (ctx, i);
          heading (ctx, b);
          break;
        case QF_BLOCK_PARAGRAPH:
          paragraph (ctx, b->text, 9.5, FALSE, black, 6);
          break;
        case QF_BLOCK_NOTE:
          note (ctx, b);
          break;
        case QF_BLOCK_VERDICT:
          verdict_box (ctx, b);
          break;
        case QF_BLOCK_TABLE:
        case QF_BLOCK_KEY_VALUE:
          table (ctx, b);
          break;
        case QF_BLOCK_CODE:
          code (ctx, b);
          break;
        case QF_BLOCK_FIGURE:
          figure (ctx, b);
          break;
        case QF_BLOCK_SIGNOFF:
          signoff (ctx, b);
          break;
        case QF_BLOCK_PAGE_BREAK:
          if (ctx->y > CONTENT_TOP + 1)
            new_page (ctx);
          break;
        default:
          g_assert_not_reached ();
        }
    }
}

static cairo_status_t
append_bytes (void                *closure,
              const unsigned char *data,
              unsigned int         length)
{
  if (closure != NULL)
    g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

static gboolean
render_pass (QfReport      *report,
             GByteArray    *sink,
             gboolean       paint,
             int            n_pages,
             SignatureLook *sig,
             int           *pages_out,
             GError       **error)
{
  cairo_surface_t *surface = cairo_pdf_surface_create_for_stream (append_bytes, sink, PAGE_W, PAGE_H);
  cairo_t *cr = cairo_create (surface);
  Ctx ctx = { report, cr, paint, 0, n_pages, 0, sig };
  cairo_status_t status;
  JsonNode *op = json_object_get_member (report->session, "operator");

  cairo_pdf_surface_restrict_to_version (surface, CAIRO_PDF_VERSION_1_5);
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_TITLE, report->header_left);
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_CREATOR, "Qualify " PACKAGE_VERSION);
  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_SUBJECT, report->title);
  if (op != NULL && JSON_NODE_TYPE (op) == JSON_NODE_VALUE && json_node_get_value_type (op) == G_TYPE_STRING)
    cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_AUTHOR, json_node_get_string (op));
  layout_blocks (&ctx);
  *pages_out = ctx.page;
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, QF_REPORT_ERROR, QF_REPORT_ERROR_RENDER,
                   _("cairo could not write the PDF: %s"), cairo_status_to_string (status));
      return FALSE;
    }
  return TRUE;
}

/* What the signature box says, from the certificate that signs and the signing time. */
static void
signature_look_init (SignatureLook *look,
                     QfSigner      *signer,
                     GDateTime     *signing_time)
{
  g_autoptr(JsonObject) info = qf_signer_describe (signer);
  const char *colons = json_object_get_string_member_with_default (info, "sha256_fingerprint", "");
  g_autoptr(GString) fp = g_string_new (NULL);
  guint digits = 0;
  g_autofree char *holder = NULL, *company = NULL, *subject = NULL;

  memset (look, 0, sizeof *look);
  /* "Li Wei, Example Robotics", as the wizard and `qualify-cli verify` name the signer */
  qf_signer_get_names (signer, &holder, &company);
  subject = qf_signer_get_subject (signer);
  look->name = qf_cert_signer_label (holder, company, subject);
  /* 64 hex digits as 16 groups of four, eight to a line. */
  for (const char *p = colons; *p != '\0'; p++)
    {
      if (!g_ascii_isxdigit (*p))
        continue;
      if (digits > 0 && digits % 4 == 0)
        g_string_append_c (fp, digits % 32 == 0 ? '\n' : ' ');
      g_string_append_c (fp, *p);
      digits++;
    }
  look->fingerprint = g_string_free (g_steal_pointer (&fp), FALSE);
  look->signed_at = g_date_time_format (signing_time, "%Y-%m-%d %H:%M:%S UTC");
}

static void
signature_look_clear (SignatureLook *look)
{
  g_free (look->name);
  g_free (look->fingerprint);
  g_free (look->signed_at);
}

static char *
signature_reason (QfReport *report)
{
  JsonNode *id = json_object_get_member (report->session, "id");

  return g_strdup_printf ("%s %s", _qf_report_tr (report, N_("Qualify acceptance report")),
                          id && JSON_NODE_TYPE (id) == JSON_NODE_VALUE && json_node_get_value_type (id) == G_TYPE_STRING
                          ? json_node_get_string (id) : "");
}

/* Lays the report out twice (count, then paint); with a signer the sign-off page shows the
 * signature's box, and the signature made afterwards carries the very time the box prints. */
GBytes *
qf_report_render_pdf (QfReport *report,
                      QfSigner *signer,
                      GError  **error)
{
  g_autoptr(GByteArray) pdf = g_byte_array_new ();
  g_autoptr(GBytes) cairo_pdf = NULL;
  g_autoptr(GBytes) session = NULL;
  g_autofree char *reason = NULL;
  g_autoptr(GError) local = NULL;
  /* To the second, in UTC: what the box prints, /M and the CMS signingTime are one value. */
  g_autoptr(GDateTime) signing_time = g_date_time_new_from_unix_utc (g_get_real_time () / G_USEC_PER_SEC);
  SignatureLook look = { 0 }, *sig = NULL;
  GBytes *out = NULL;
  int pages = 0, counted = 0;

  g_return_val_if_fail (report != NULL, NULL);
  _qf_report_build (report);
  if (signer != NULL)
    {
      signature_look_init (&look, signer, signing_time);
      sig = &look;
    }
  if (!render_pass (report, NULL, FALSE, 0, sig, &counted, error) ||
      !render_pass (report, pdf, TRUE, counted, sig, &pages, error))
    goto done;
  g_assert (pages == counted);

  cairo_pdf = g_byte_array_free_to_bytes (g_steal_pointer (&pdf));
  session = g_bytes_new_static (report->session_text, strlen (report->session_text));
  reason = signature_reason (report);
  out = qf_pdf_update (cairo_pdf, "session.json", session,
                       _qf_report_tr (report, N_("Qualify session data (JSON)")), signer, reason,
                       look.placed ? &look.box : NULL, signing_time, &local);
  if (out == NULL)
    g_set_error (error, QF_REPORT_ERROR, signer ? QF_REPORT_ERROR_SIGN : QF_REPORT_ERROR_RENDER,
                 "%s", local->message);
done:
  signature_look_clear (&look);
  return out;
}
