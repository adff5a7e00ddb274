/* qf-entry-row.c — a list row with a text field in it (src/ui); see qf-entry-row.h. The field
 * is a GtkText the row delegates GtkEditable to. Its title is drawn twice: large in the empty
 * field (empty_title) and small above the text (title); a 150 ms animation moves and scales one
 * into the other, as libadwaita 1.2's entry row does, through the editable area's own layout. */
#include "config.h"

#include "qf-entry-row-private.h"

#define EMPTY_ANIMATION_MS 150
#define TITLE_SPACING      3

typedef struct
{
  /* template widgets */
  GtkWidget    *header;
  GtkBox       *prefixes;
  GtkWidget    *editable_area;
  GtkWidget    *empty_title;
  GtkWidget    *title;
  GtkWidget    *text;
  GtkWidget    *indicator;
  GtkWidget    *edit_icon;
  GtkBox       *suffixes;

  /* owned */
  AdwAnimation *empty_animation;

  double        empty_progress; /* 0: the title stands in the empty field, 1: above the text */
  gboolean      editing;        /* the field has the focus */
  gboolean      show_indicator;
  gboolean      activates_default;
} QfEntryRowPrivate;

static void qf_entry_row_buildable_init (GtkBuildableIface *iface);
static void qf_entry_row_editable_init  (GtkEditableInterface *iface);

G_DEFINE_TYPE_WITH_CODE (QfEntryRow, qf_entry_row, ADW_TYPE_PREFERENCES_ROW,
                         G_ADD_PRIVATE (QfEntryRow)
                         G_IMPLEMENT_INTERFACE (GTK_TYPE_BUILDABLE, qf_entry_row_buildable_init)
                         G_IMPLEMENT_INTERFACE (GTK_TYPE_EDITABLE, qf_entry_row_editable_init))

static GtkBuildableIface *parent_buildable_iface;

enum { PROP_0, PROP_ACTIVATES_DEFAULT, N_PROPS };
static GParamSpec *properties[N_PROPS];

static void
empty_animation_value (double      value,
                       QfEntryRow *self)
{
  QfEntryRowPrivate *priv = qf_entry_row_get_instance_private (self);

  priv->empty_progress = value;
  gtk_widget_queue_allocate (priv->editable_area);
  gtk_widget_set_opacity (priv->text, value);
  gtk_widget_set_opacity (priv->title, value);
  gtk_widget_set_opacity (priv->empty_title, 1 - value);
}

static gboolean
text_focused (QfEntryRowPrivate *priv)
{
  return (gtk_widget_get_state_flags (priv->text) & GTK_STATE_FLAG_FOCUS_WITHIN) != 0;
}

/* The title stays in the field only while it is empty and nobody is typing in it. */
static void
update_empty (QfEntryRow *self)
{
  QfEntryRowPrivate *priv = qf_entry_row_get_instance_private (self);
  gboolean editable, empty, title_inside;

  if (priv->empty_animation == NULL) /* disposed */
    return;
  editable = gtk_editable_get_editable (GTK_EDITABLE (priv->text));
  empty = gtk_entry_buffer_get_length (gtk_text_get_buffer (GTK_TEXT (priv->text))) == 0;
  title_inside = empty && !(text_focused (priv) && editable);
  gtk_widget_set_visible (priv->edit_icon, !priv->editing || !editable);
  gtk_widget_set_sensitive (priv->edit_icon, editable);
  gtk_widget_set_visible (priv->indicator, priv->editing && priv->show_indicator);
  gtk_widget_queue_allocate (priv->editable_area);
  adw_timed_animation_set_value_from (ADW_TIMED_ANIMATION (priv->empty_animation), priv->empty_progress);
  adw_timed_animation_set_value_to (ADW_TIMED_ANIMATION (priv->empty_animation), title_inside ? 0 : 1);
  adw_animation_play (priv->empty_animation);
}

static void
text_state_flags_changed_cb (QfEntryRow *self)
{
  QfEntryRowPrivate *priv = qf_entry_row_get_instance_private (self);

  priv->editing = text_focused (priv);
  if (priv->editing)
    gtk_widget_add_css_class (GTK_WIDGET (self), "focused");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self), "focused");
  update_empty (self);
}

/* Left and Right at the ends of the text go on to the row's buttons. */
static gboolean
text_keynav_failed_cb (QfEntryRow       *self,
                       GtkDirectionType  direction)
{
  if (direction == GTK_DIR_LEFT || direction == GTK_DIR_RIGHT)
    return gtk_widget_child_focus (GTK_WIDGET (self), direction);
  return GDK_EVENT_PROPAGATE;
}

static void
text_activated_cb (QfEntryRow *self)
{
  QfEntryRowPrivate *priv = qf_entry_row_get_instance_private (self);

  if (priv->activates_default)
    gtk_widget_activate_default (GTK_WIDGET (self));
}

/* A click anywhere on the row but on its buttons puts the cursor in the field. */
static void
pressed_cb (GtkGesture *gesture,
            int         n_press,
            double      x,
            double      y,
            QfEntryRow *self)
{
  QfEntryRowPrivate *priv = qf_entry_row_get_instance_private (self);
  GtkWidget *picked = gtk_widget_pick (GTK_WIDGET (self), x, y, GTK_PICK_DEFAULT);

  if (picked != GTK_WIDGET (self) && picked != priv->header && picked != priv->indicator
      && picked != GTK_WIDGET (priv->prefixes) && picked != GTK_WIDGET (priv->suffixes))
    {
      gtk_gesture_set_state (gesture, GTK_EVENT_SEQUENCE_DENIED);
      return;
    }
  gtk_text_grab_focus_without_selecting (GTK_TEXT (priv->text));
  gtk_gesture_set_state (gesture, GTK_EVENT_SEQUENCE_CLAIMED);
}

static void
measure_editable_area (GtkWidget      *area,
                       GtkOrientation  orientation,
                       int             for_size,
                       int            *minimum,
                       int            *natural,
                       int            *minimum_baseline,
                       int            *natural_baseline)
{
  QfEntryRow *self = QF_ENTRY_ROW (gtk_widget_get_ancestor (area, QF_TYPE_ENTRY_ROW));
  QfEntryRowPrivate *priv = qf_entry_row_get_instance_private (self);
  int text_min = 0, text_nat = 0, title_min = 0, title_nat = 0, empty_min = 0, empty_nat = 0;

  gtk_widget_measure (priv->text, orientation, for_size, &text_min, &text_nat, NULL, NULL);
  gtk_widget_measure (priv->title, orientation, for_size, &title_min, &title_nat, NULL, NULL);
  gtk_widget_measure (priv->empty_title, orientation, for_size, &empty_min, &empty_nat, NULL, NULL);
  *minimum = MAX (text_min + TITLE_SPACING + title_min, empty_min);
  *natural = MAX (text_nat + TITLE_SPACING + title_nat, empty_nat);
  *minimum_baseline = -1;
  *natural_baseline = -1;
}

/* A label drawn at its own size, moved down by offset and scaled from its start edge. */
static void
allocate_scaled (GtkWidget *label,
                 int        width,
                 int        height,
                 float      offset,
                 float      scale,
                 gboolean   rtl)
{
  GskTransform *transform = gsk_transform_translate (NULL, &GRAPHENE_POINT_INIT (0, offset));

  if (rtl)
    transform = gsk_transform_translate (transform, &GRAPHENE_POINT_INIT (width, 0));
  transform = gsk_transform_scale (transform, scale, scale);
  if (rtl)
    transform = gsk_transform_translate (transform, &GRAPHENE_POINT_INIT (-width, 0));
  gtk_widget_allocate (label, width, height, -1, transform);
}

static void
allocate_editable_area (GtkWidget *area,
                        int        width,
                        int        height,
                        int        baseline)
{
  QfEntryRow *self = QF_ENTRY_ROW (gtk_widget_get_ancestor (area, QF_TYPE_ENTRY_ROW));
  QfEntryRowPrivate *priv = qf_entry_row_get_instance_private (self);
  gboolean rtl = gtk_widget_get_direction (area) == GTK_TEXT_DIR_RTL;
  int empty_height = 0, title_height = 0, text_height = 0, text_baseline = -1;
  double p = priv->empty_progress;
  float offset;

  gtk_widget_measure (priv->title, GTK_ORIENTATION_VERTICAL, width, NULL, &title_height, NULL, NULL);
  gtk_widget_measure (priv->empty_title, GTK_ORIENTATION_VERTICAL, width, NULL, &empty_height, NULL, NULL);
  gtk_widget_measure (priv->text, GTK_ORIENTATION_VERTICAL, width, NULL, &text_height, NULL, &text_baseline);
  empty_height = MAX (empty_height, 1);
  title_height = MAX (title_height, 1);
  offset = (float) adw_lerp ((height - empty_height) / 2.0,
                             (height - title_height - text_height - TITLE_SPACING) / 2.0, p);
  allocate_scaled (priv->empty_title, width, empty_height, offset,
                   (float) adw_lerp (1.0, (double) title_height / empty_height, p), rtl);
  allocate_scaled (priv->title, width, title_height, offset,
                   (float) adw_lerp ((double) empty_height / title_height, 1.0, p), rtl);
  text_baseline += (height + title_height - text_height + TITLE_SPACING) / 2;
  gtk_widget_allocate (priv->text, width, height, text_baseline, NULL);
}

/* The row itself never takes the focus: its field and buttons do, in their order. */
static gboolean
qf_entry_row_focus (GtkWidget        *widget,
                    GtkDirectionType  direction)
{
  QfEntryRowPrivate *priv = qf_entry_row_get_instance_private (QF_ENTRY_ROW (widget));

  return gtk_widget_child_focus (priv->header, direction);
}

static gboolean
qf_entry_row_grab_focus (GtkWidget *widget)
{
  QfEntryRowPrivate *priv = qf_entry_row_get_instance_private (QF_ENTRY_ROW (widget));

  return gtk_widget_grab_focus (priv->text);
}

static void
qf_entry_row_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  QfEntryRow *self = QF_ENTRY_ROW (object);

  if (gtk_editable_delegate_get_property (object, prop_id, value, pspec))
    return;
  switch (prop_id)
    {
    case PROP_ACTIVATES_DEFAULT:
      g_value_set_boolean (value, qf_entry_row_get_activates_default (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
qf_entry_row_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  QfEntryRow *self = QF_ENTRY_ROW (object);

  if (gtk_editable_delegate_set_property (object, prop_id, value, pspec))
    return;
  switch (prop_id)
    {
    case PROP_ACTIVATES_DEFAULT:
      qf_entry_row_set_activates_default (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
qf_entry_row_dispose (GObject *object)
{
  QfEntryRow *self = QF_ENTRY_ROW (object);
  QfEntryRowPrivate *priv = qf_entry_row_get_instance_private (self);

  if (priv->text != NULL)
    gtk_editable_finish_delegate (GTK_EDITABLE (self));
  g_clear_object (&priv->empty_animation);
  G_OBJECT_CLASS (qf_entry_row_parent_class)->dispose (object);
}

static void
qf_entry_row_class_init (QfEntryRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = qf_entry_row_get_property;
  object_class->set_property = qf_entry_row_set_property;
  object_class->dispose = qf_entry_row_dispose;
  widget_class->focus = qf_entry_row_focus;
  widget_class->grab_focus = qf_entry_row_grab_focus;

  properties[PROP_ACTIVATES_DEFAULT] =
    g_param_spec_boolean ("activates-default", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  gtk_editable_install_properties (object_class, N_PROPS);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/qualify/Qualify/qf-entry-row.ui");
  gtk_widget_class_bind_template_child_private (widget_class, QfEntryRow, header);
  gtk_widget_class_bind_template_child_private (widget_class, QfEntryRow, prefixes);
  gtk_widget_class_bind_template_child_private (widget_class, QfEntryRow, editable_area);
  gtk_widget_class_bind_template_child_private (widget_class, QfEntryRow, empty_title);
  gtk_widget_class_bind_template_child_private (widget_class, QfEntryRow, title);
  gtk_widget_class_bind_template_child_private (widget_class, QfEntryRow, text);
  gtk_widget_class_bind_template_child_private (widget_class, QfEntryRow, indicator);
  gtk_widget_class_bind_template_child_private (widget_class, QfEntryRow, edit_icon);
  gtk_widget_class_bind_template_child_private (widget_class, QfEntryRow, suffixes);
  gtk_widget_class_bind_template_callback (widget_class, pressed_cb);
  gtk_widget_class_bind_template_callback (widget_class, text_state_flags_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, text_keynav_failed_cb);
  gtk_widget_class_bind_template_callback (widget_class, text_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, update_empty);
  /* what screen readers and the AT-SPI tests see: a text field named after the title */
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_TEXT_BOX);
}

static void
qf_entry_row_init (QfEntryRow *self)
{
  QfEntryRowPrivate *priv = qf_entry_row_get_instance_private (self);
  AdwAnimationTarget *target;

  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_editable_init_delegate (GTK_EDITABLE (self));
  /* the editable area is a plain container laid out here: the titles are scaled, not stacked */
  gtk_widget_set_layout_manager (priv->editable_area,
                                 gtk_custom_layout_new (NULL, measure_editable_area, allocate_editable_area));
  target = adw_callback_animation_target_new ((AdwAnimationTargetFunc) empty_animation_value, self, NULL);
  priv->empty_animation = adw_timed_animation_new (GTK_WIDGET (self), 0, 0, EMPTY_ANIMATION_MS, target);
  update_empty (self);
}

static void
qf_entry_row_buildable_add_child (GtkBuildable *buildable,
                                  GtkBuilder   *builder,
                                  GObject      *child,
                                  const char   *type)
{
  QfEntryRow *self = QF_ENTRY_ROW (buildable);
  QfEntryRowPrivate *priv = qf_entry_row_get_instance_private (self);

  /* while the template itself is built, its children are the row's own */
  if (priv->header == NULL || !GTK_IS_WIDGET (child))
    parent_buildable_iface->add_child (buildable, builder, child, type);
  else if (g_strcmp0 (type, "prefix") == 0)
    qf_entry_row_add_prefix (self, GTK_WIDGET (child));
  else if (type == NULL || g_strcmp0 (type, "suffix") == 0)
    qf_entry_row_add_suffix (self, GTK_WIDGET (child));
  else
    parent_buildable_iface->add_child (buildable, builder, child, type);
}

static void
qf_entry_row_buildable_init (GtkBuildableIface *iface)
{
  parent_buildable_iface = g_type_interface_peek_parent (iface);
  iface->add_child = qf_entry_row_buildable_add_child;
}

static GtkEditable *
qf_entry_row_get_delegate (GtkEditable *editable)
{
  QfEntryRowPrivate *priv = qf_entry_row_get_instance_private (QF_ENTRY_ROW (editable));

  return GTK_EDITABLE (priv->text);
}

static void
qf_entry_row_editable_init (GtkEditableInterface *iface)
{
  iface->get_delegate = qf_entry_row_get_delegate;
}

GtkWidget *
qf_entry_row_new (void)
{
  return g_object_new (QF_TYPE_ENTRY_ROW, NULL);
}

void
qf_entry_row_add_prefix (QfEntryRow *self,
                         GtkWidget  *widget)
{
  QfEntryRowPrivate *priv;

  g_return_if_fail (QF_IS_ENTRY_ROW (self));
  g_return_if_fail (GTK_IS_WIDGET (widget));
  priv = qf_entry_row_get_instance_private (self);
  gtk_box_prepend (priv->prefixes, widget);
  gtk_widget_set_visible (GTK_WIDGET (priv->prefixes), TRUE);
}

void
qf_entry_row_add_suffix (QfEntryRow *self,
                         GtkWidget  *widget)
{
  QfEntryRowPrivate *priv;

  g_return_if_fail (QF_IS_ENTRY_ROW (self));
  g_return_if_fail (GTK_IS_WIDGET (widget));
  priv = qf_entry_row_get_instance_private (self);
  gtk_box_append (priv->suffixes, widget);
  gtk_widget_set_visible (GTK_WIDGET (priv->suffixes), TRUE);
}

gboolean
qf_entry_row_get_activates_default (QfEntryRow *self)
{
  QfEntryRowPrivate *priv;

  g_return_val_if_fail (QF_IS_ENTRY_ROW (self), FALSE);
  priv = qf_entry_row_get_instance_private (self);
  return priv->activates_default;
}

void
qf_entry_row_set_activates_default (QfEntryRow *self,
                                    gboolean    activates)
{
  QfEntryRowPrivate *priv;

  g_return_if_fail (QF_IS_ENTRY_ROW (self));
  priv = qf_entry_row_get_instance_private (self);
  activates = !!activates;
  if (priv->activates_default == activates)
    return;
  priv->activates_default = activates;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVATES_DEFAULT]);
}

void
_qf_entry_row_set_indicator (QfEntryRow *self,
                             const char *icon_name,
                             const char *tooltip)
{
  QfEntryRowPrivate *priv = qf_entry_row_get_instance_private (self);

  gtk_image_set_from_icon_name (GTK_IMAGE (priv->indicator), icon_name);
  gtk_widget_set_tooltip_text (priv->indicator, tooltip);
}

void
_qf_entry_row_show_indicator (QfEntryRow *self,
                              gboolean    show)
{
  QfEntryRowPrivate *priv = qf_entry_row_get_instance_private (self);

  priv->show_indicator = show;
  update_empty (self);
}
