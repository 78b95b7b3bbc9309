// The scripted model turn every real agent plays in the interop suite (issue 7 item 6): read a
// file, edit it, write a new file, run a shell command that needs approval, write a todo list,
// answer. Each agent's model mock (interop/mocks/) scripts these steps in that agent's own tool
// names; the harness prepares the workspace and checks the files afterwards.

export const SCENARIO = {
  /** What the client prompts. The mock ignores it and plays the steps below. */
  prompt: "Please tidy notes.txt, add hello.py, check the listing and plan the next steps.",
  /** Files present in the session's cwd before the turn. */
  files: {
    "notes.txt": "alpha\nbeta\ngamma\ndelta\nepsilon\n",
  } as Readonly<Record<string, string>>,
  steps: {
    read: { path: "notes.txt" },
    /** Replace one line (a snippet edit: agents send the edited lines, not the whole file). */
    edit: { path: "notes.txt", oldText: "gamma", newText: "GAMMA" },
    write: { path: "hello.py", content: 'print("hello")\n' },
    /** A command the agent must ask the client's approval for. */
    shell: { command: "echo interop-ok && ls", expectOutput: "interop-ok" },
    todos: [
      { content: "Review notes.txt", status: "completed" },
      { content: "Run hello.py", status: "pending" },
    ],
    answer: "All done: notes tidied, hello.py added.",
  },
  /** The files after the turn. */
  expected: {
    "notes.txt": "alpha\nbeta\nGAMMA\ndelta\nepsilon\n",
    "hello.py": 'print("hello")\n',
  } as Readonly<Record<string, string>>,
} as const;
