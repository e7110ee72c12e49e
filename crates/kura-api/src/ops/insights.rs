//! Contributor Insights: UpdateContributorInsights, DescribeContributorInsights,
//! ListContributorInsights (authorized on the table they name, with the control plane).

use kura_engine::api::{
    DescribeContributorInsightsInput, ListContributorInsightsInput, UpdateContributorInsightsInput,
};

use super::input::{begin, control_inputs};
use super::{Call, json};
use crate::error::ApiError;

control_inputs! {
    UpdateContributorInsightsInput => table_name;
    DescribeContributorInsightsInput => table_name;
    ListContributorInsightsInput => table_name;
}

pub async fn update_contributor_insights(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: UpdateContributorInsightsInput = begin(&call).await?;
    json(&call.engine.update_contributor_insights(input).await?)
}

pub async fn describe_contributor_insights(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: DescribeContributorInsightsInput = begin(&call).await?;
    json(&call.engine.describe_contributor_insights(input)?)
}

pub async fn list_contributor_insights(call: Call<'_>) -> Result<Vec<u8>, ApiError> {
    let input: ListContributorInsightsInput = begin(&call).await?;
    json(&call.engine.list_contributor_insights(input)?)
}
