"""Pictures for notebooks and pages - frames, stepper, explorer, model-check and incident views, export: the facade."""

from .frames import frames
from .incident import incident_markup, incident_page, write_incident_page
from .model_check import counterexample_view, first_holding, matrix_html
from .notebooks import execute, export_html
from .picker import picker_html
from .stepper import (
    StepperView,
    compare_view,
    plot_hw_lag,
    rendered_frames,
    scenario_file_html,
    scenarios_view,
    stepper_html,
)

__all__ = ["StepperView", "compare_view", "counterexample_view", "execute", "export_html", "first_holding", "frames",
           "incident_markup", "incident_page", "matrix_html", "picker_html", "plot_hw_lag", "rendered_frames",
           "scenario_file_html", "scenarios_view", "stepper_html", "write_incident_page"]
