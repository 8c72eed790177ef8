"""The compositional task generator: compose atomic subtasks into tasks, verify, lint and write them.

Entry points (imported from their modules, so that light users such as the CLI do not load networkx):
`generator.pipeline.generate` and `generate_stream` (with `GeneratorOptions` from `generator.options`; a
stream is a `generator.stream.TaskStream`), `generator.export`
(`make_suite`, `write_generation`), `generator.summary.summary_lines`, `generator.workflow.Workflow`.
See docs/generator.md.
"""
