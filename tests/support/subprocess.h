// Runs a program (the real tinyaot CLI) as a child process and reports how
// it ended, so tests can tell a clean error exit from a crash.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace tinyaot::test {

struct ChildResult {
  int exit_code = -1;  // -1 when the child did not exit normally
  int signal = 0;      // the terminating signal, 0 when it exited
  std::string out;
  std::string err;

  // A sanitizer report ends the child with exit code 1 too, so a "clean
  // failure" must also be free of sanitizer output. A WARNING that an
  // allocation failed (allocator_may_return_null) is not a report.
  bool sanitizer_report() const {
    return err.find("ERROR: AddressSanitizer") != std::string::npos ||
           err.find("AddressSanitizer:DEADLYSIGNAL") != std::string::npos ||
           err.find("LeakSanitizer") != std::string::npos ||
           err.find("runtime error") != std::string::npos ||
           err.find("UndefinedBehaviorSanitizer") != std::string::npos;
  }
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Runs `args` (args[0] is the executable path) with stdout and stderr sent to
// files in `scratch_dir`, and waits for it. `extra_env` entries ("NAME=value")
// are added to (and override) the environment.
inline ChildResult run_child(const std::vector<std::string>& args, const std::string& scratch_dir,
                             const std::vector<std::string>& extra_env = {}) {
  const std::string out_path = scratch_dir + "/child.stdout";
  const std::string err_path = scratch_dir + "/child.stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& entry : extra_env) envp.push_back(const_cast<char*>(entry.c_str()));
  for (char** e = environ; *e != nullptr; ++e) {
    bool overridden = false;
    for (const std::string& entry : extra_env)
      overridden =
          overridden || std::string(*e).rfind(entry.substr(0, entry.find('=') + 1), 0) == 0;
    if (!overridden) envp.push_back(*e);
  }
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw std::runtime_error("cannot start " + args[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  ChildResult result;
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.out = slurp(out_path);
  result.err = slurp(err_path);
  return result;
}

}  // namespace tinyaot::test
