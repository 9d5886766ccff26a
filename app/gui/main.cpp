// rbmscope: the desktop app. Options (also for docs and tests):
//   --preset NAME | --model FILE     what to open (default: the four-mode toy)
//   --screenshot FILE.png [--size WxH]  render the window once results are in, save it, exit
#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>
#include <iostream>

#include "main_window.hpp"
#include "rbmscope/presets.hpp"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("rbmscope"));
    QApplication::setOrganizationName(QStringLiteral("rbmscope"));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("See and measure samplers and annealers on RBMs."));
    parser.addHelpOption();
    QCommandLineOption preset(QStringLiteral("preset"), QStringLiteral("Open a bundled preset."), QStringLiteral("NAME"),
                              QString::fromStdString(rbm::default_preset_name()));
    QCommandLineOption model(QStringLiteral("model"), QStringLiteral("Open a model file."), QStringLiteral("FILE"));
    QCommandLineOption shot(QStringLiteral("screenshot"), QStringLiteral("Render, save a PNG and exit."), QStringLiteral("FILE"));
    QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size for --screenshot."), QStringLiteral("WxH"),
                            QStringLiteral("1100x720"));
    parser.addOptions({preset, model, shot, size});
    parser.process(app);

    rbmscope::MainWindow w;
    const bool screenshot = parser.isSet(shot);
    w.setInteractive(!screenshot);
    bool ok = parser.isSet(model) ? w.loadFile(parser.value(model)) : w.loadPreset(parser.value(preset));
    if (!ok && screenshot) return 2;
    if (!ok) w.loadPreset(QString::fromStdString(rbm::default_preset_name()));

    if (screenshot) {
        const QStringList wh = parser.value(size).split('x');
        if (wh.size() == 2) w.resize(wh[0].toInt(), wh[1].toInt());
        w.show();
        const QString file = parser.value(shot);
        auto* poll = new QTimer(&w);
        QObject::connect(poll, &QTimer::timeout, &w, [&w, file, poll] {
            if (!w.idle()) return;
            poll->stop();
            QApplication::processEvents();
            if (!w.grab().save(file)) {
                std::cerr << "rbmscope: cannot write " << file.toStdString() << std::endl;
                QApplication::exit(2);
                return;
            }
            std::cout << "rbmscope: wrote " << file.toStdString() << std::endl;
            QApplication::exit(0);
        });
        poll->start(50);
        QTimer::singleShot(60000, &w, [] {
            std::cerr << "rbmscope: timed out waiting for results" << std::endl;
            QApplication::exit(3);
        });
    } else {
        w.show();
    }
    return app.exec();
}
