//! Every integration test in one binary, a module per area (ripgrep's layout): one link of the
//! crate graph instead of one per file. Two files keep a binary of their own, for what they do
//! to the whole process: `tests/allocator.rs` installs the process allocator as the binary does,
//! and `tests/helm_corpus_values.rs` runs each case from the case's folder as Helm did (it
//! changes the working directory, which every test here relies on).

mod support;

mod archive_safety;
mod certs_lifecycle;
mod chart_authoring;
mod chart_schema;
mod cli_chart_choice;
mod cli_docs;
mod cli_functions;
mod cli_golden;
mod cli_habits;
mod cli_helm_flags;
mod cli_helm_habits;
mod cli_inject;
mod cli_json_output;
mod cli_progress;
mod cli_render;
mod control_plane_await;
mod control_plane_partials;
mod control_plane_staged_install;
mod deep_template_values;
mod diff;
mod diff_golden;
mod fixture_all_functions;
mod fleet;
mod functions_engine;
mod fuzz_regressions;
mod go_charts;
mod golden;
mod helm_charts_corpus;
mod helm_corpus_functions;
mod helm_corpus_ordering;
mod helm_corpus_sprig;
mod helm_corpus_toyaml;
mod hostile_inputs;
mod hostile_templates;
mod identity;
mod inject_golden;
mod inject_properties;
mod inject_release_lines;
mod inject_streaming;
mod lint;
mod lint_kubernetes_rules;
mod native_sidecar;
mod nesting_and_stacks;
mod output_dir;
mod output_door;
mod package;
mod post_renderer;
mod readme_walkthrough;
mod real_images;
mod reference_control_plane;
mod reference_inject;
mod release_eras;
mod release_images;
mod release_line_binaries;
mod release_line_edge_24_10_2;
mod release_line_edge_25_11_2;
mod release_line_edge_25_6_2;
mod release_line_edge_25_8_2;
mod release_line_edge_26_8_3;
mod release_line_stable_2_14_10;
mod release_lines_start;
mod release_state_features;
mod remembered_outputs;
mod render_with_helper;
mod values_checked_at_render;
mod values_golden;
mod yaml_input_rules;
mod yaml_round_trip;
