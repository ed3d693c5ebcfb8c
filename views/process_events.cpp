#include "process_events.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>

namespace bnscope {

bool process_events_while(const std::function<bool()>& busy, int timeoutMs) {
  QElapsedTimer t;
  t.start();
  while (busy() && t.elapsed() < timeoutMs) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(2);
  }
  return !busy();
}

}  // namespace bnscope
