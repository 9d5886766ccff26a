#pragma once
// "About this method": a short text per annealing path with its equations and the paper it
// comes from (docs/methods/annealing-paths.md, schedules.md, ais-estimates.md), as rich text for a message box.
#include <QString>

#include "run_settings.hpp"

namespace rbmscope {

QString methodHelpHtml(const MethodSpec& method, rbm::ModelKind kind);
// The estimators and diagnostics shown in the Estimates view (docs/methods/ais-estimates.md).
QString estimatesHelpHtml();

}  // namespace rbmscope
