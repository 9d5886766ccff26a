#pragma once
// A view's controls (play button, slider, check boxes, settings rows) carry this property, set to
// true: image and playback exports leave them out, so a slide shows the figure only
// (main_window/view_export.hpp, ControlsLeftOut).
#include <QLayout>
#include <QWidget>

namespace rbmscope {
inline constexpr char kExportHidden[] = "rbmscopeExportHidden";

// A row of controls built as a layout, put in a widget of its own that exports leave out.
// QWidget::setLayout reparents the row's widgets to that box.
inline QWidget* controlsRow(QLayout* row, QWidget* parent) {
    auto* box = new QWidget(parent);
    row->setContentsMargins(0, 0, 0, 0);
    box->setLayout(row);
    box->setProperty(kExportHidden, true);
    return box;
}
}  // namespace rbmscope
