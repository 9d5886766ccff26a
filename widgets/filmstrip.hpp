#pragma once
// A filmstrip: small heatmaps of the annealed distributions at chosen betas, one row per method
// (the layout of Kiwaki & Aihara's Figs. 2-3). Cells are compact HeatmapViews; the images are
// computed elsewhere and handed over.
#include <QGridLayout>
#include <QLabel>
#include <QWidget>
#include <vector>

#include "heatmap_view.hpp"

namespace rbmscope {

class Filmstrip : public QWidget {
    Q_OBJECT
public:
    explicit Filmstrip(QWidget* parent = nullptr);

    // Rebuilds the grid: one row per label, one column per beta.
    void setLayout(const QStringList& rowLabels, const std::vector<double>& betas);
    int rows() const { return static_cast<int>(rowLabels_.size()); }
    int columns() const { return static_cast<int>(betas_.size()); }
    const std::vector<double>& betas() const { return betas_; }
    HeatmapView* cell(int row, int column) const;

private:
    QGridLayout* grid_;
    QStringList rowLabels_;
    std::vector<double> betas_;
    std::vector<HeatmapView*> cells_;
    std::vector<QWidget*> owned_;
};

}  // namespace rbmscope
