"""The compositional task generator: compose atomic subtasks into tasks, verify, lint and write them.

Entry points (imported from their modules, so that light users such as the CLI do not load networkx):
`generator.pipeline.generate` (with `GeneratorOptions` from `generator.options`), `generator.export`
(`make_suite`, `write_generation`), `generator.summary.summary_lines`, `generator.workflow.Workflow`.
See docs/generator.md.
"""
