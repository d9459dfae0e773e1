// Compiling a lab kernel file and running it in a child with a time limit.
#include "viz/lesson/lab_runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

namespace ts::lab {

namespace fs = std::filesystem;

namespace {


double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

BuildConfig load_build_config() {
  fs::path file;
  if (const char* e = std::getenv("TILESCOPE_LAB_BUILD"); e && *e) file = e;
#ifdef TILESCOPE_LAB_BUILD_FILE
  else file = TILESCOPE_LAB_BUILD_FILE;
#endif
  if (file.empty() || !fs::exists(file))
    throw std::runtime_error("no lab build configuration (" + (file.empty() ? std::string("unset") : file.string()) +
                             "): build the tilescope target in this build folder, or set TILESCOPE_LAB_BUILD");
  try {
    const auto j = nlohmann::json::parse(read_all(file));
    BuildConfig c;
    c.file = file;
    c.host = j.contains("cxx");
    if (c.host) {
      c.cxx = j.at("cxx");
      c.flags = j.at("flags").get<std::vector<std::string>>();
      c.includes = j.at("includes").get<std::vector<std::string>>();
      c.defines = j.at("defines").get<std::vector<std::string>>();
      c.link = j.at("link").get<std::vector<std::string>>();
      c.memory_limit_mb = j.value("memory_limit_mb", uint64_t{0});
    }
    if (j.contains("gpu")) {
      const auto& g = j.at("gpu");
      c.gpu = GpuBuildConfig{g.at("nvcc"), g.at("flags").get<std::vector<std::string>>(), g.at("includes").get<std::vector<std::string>>(),
                             g.at("link").get<std::vector<std::string>>()};
    }
    std::vector<std::string> libs = c.link;
    if (c.gpu) libs.insert(libs.end(), c.gpu->link.begin(), c.gpu->link.end());
    for (const auto& l : libs)
      if (!l.empty() && l[0] == '/' && !fs::exists(l))
        throw std::runtime_error("it names " + l + ", which does not exist (build the tilescope target first)");
    return c;
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": " + e.what());
  }
}

CompileResult compile_lab(const BuildConfig& cfg, const fs::path& source, const fs::path& binary) {
  std::vector<std::string> argv{cfg.cxx};
  for (const auto& f : cfg.flags) argv.push_back(f);
  for (const auto& d : cfg.defines) argv.push_back("-D" + d);
  for (const auto& i : cfg.includes) argv.push_back("-I" + i);
  // Plain diagnostics, a few of them: the first error is the one to read (no caret lines: the build's
  // own flag for that is in cfg.flags, as GCC and Clang spell it differently).
  for (const char* f : {"-fdiagnostics-color=never", "-fmax-errors=3"}) argv.push_back(f);
  argv.push_back(source.string());
  for (const auto& l : cfg.link) argv.push_back(l);
  argv.push_back("-o");
  argv.push_back(binary.string());
  const fs::path log = binary.string() + ".compile.log";
  const auto t0 = std::chrono::steady_clock::now();
  fs::remove(binary);
  const ChildResult r = run_child(argv, 120, log);
  CompileResult c;
  c.seconds = since(t0);
  c.ok = r.exit_code == 0 && fs::exists(binary);
  c.diagnostics = read_all(log);
  if (r.timed_out) c.diagnostics += "\nthe compiler ran past 120 s and was stopped";
  else if (r.signal) c.diagnostics += "\nthe compiler was ended by " + signal_name(r.signal);
  return c;
}

ChildResult run_child(const std::vector<std::string>& argv, double time_limit_s, const fs::path& log, uint64_t memory_limit_mb) {
  ChildResult r;
  // Everything the child needs is made before fork: a process with threads (the GUI) may only call
  // async-signal-safe functions between fork and exec.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::string log_path = log.string();
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);  // its own group: the time limit ends the compiler's or kernel's children too
    const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    // A runaway allocation fails in the child, not in the machine.
    if (memory_limit_mb > 0) {
      rlimit as{memory_limit_mb << 20, memory_limit_mb << 20};
      setrlimit(RLIMIT_AS, &as);
    }
    rlimit core{0, 0};  // no core files in the student's folder
    setrlimit(RLIMIT_CORE, &core);
    execvp(args[0], args.data());
    const char msg[] = "cannot run the program\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(127);
  }
  setpgid(pid, pid);
  int status = 0;
  for (;;) {
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (since(t0) > time_limit_s) {
      kill(-pid, SIGKILL);  // the group this call created for the child
      waitpid(pid, &status, 0);
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.seconds = since(t0);
  if (!r.timed_out) {
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  }
  std::string out = read_all(log);
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("lab-stage: ", 0) == 0) r.last_stage = line.substr(11);
  if (out.size() > 8192) out = "...\n" + out.substr(out.size() - 8192);
  r.output = out;
  return r;
}

fs::path cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "tilescope" / "labs";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "tilescope" / "labs";
  return fs::temp_directory_path() / "tilescope-labs";
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV (a bad memory access)";
    case SIGBUS: return "SIGBUS (a bad memory access)";
    case SIGFPE: return "SIGFPE (an arithmetic fault, e.g. an integer division by zero)";
    case SIGABRT: return "SIGABRT (abort: a failed assert or an uncaught exception)";
    case SIGILL: return "SIGILL (an illegal instruction)";
    case SIGKILL: return "SIGKILL (killed, e.g. out of memory)";
    default: return std::string("signal ") + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
}

std::string read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace ts::lab
