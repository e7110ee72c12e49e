//! Tasks with sub-tasks: created, started, sub-tasks ended by concurrent workers, the task
//! ending itself when the last one ends (completed, or failed naming the failed
//! sub-task), each transition a version with history.
mod common;

use kura_cqrs::tasks::{TaskService, TaskStatus};
use kura_cqrs::{CommandService, DataService, Invoker, ensure_tables};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_end_when_their_sub_tasks_have() {
    let client = common::client().await;
    let tables = common::unique_names("task");
    ensure_tables(&client, &tables).await.expect("tables");
    let tasks = TaskService::new(
        CommandService::new(client.clone(), tables.clone()),
        DataService::new(client.clone(), tables.clone()),
    );
    let invoker = Invoker {
        user_id: "worker".into(),
        ..Invoker::default()
    };

    // Three sub-tasks, ended by three workers at once.
    let key = tasks
        .create(
            "tenant001",
            "resize-images",
            json!({"album": "a1"}),
            vec![json!("img1"), json!("img2"), json!("img3")],
            &invoker,
        )
        .await
        .expect("create");
    tasks.start(&key, &invoker).await.expect("start");
    let view = tasks.get(&key).await.expect("get").expect("task");
    assert_eq!(
        (view.task.status, view.ended, view.sub_tasks.len()),
        (TaskStatus::Started, 0, 3)
    );
    let (a, b, c) = tokio::join!(
        tasks.end_sub_task(&key, 1, Ok(json!({"bytes": 1})), &invoker),
        tasks.end_sub_task(&key, 2, Ok(json!({"bytes": 2})), &invoker),
        tasks.end_sub_task(&key, 3, Ok(json!({"bytes": 3})), &invoker),
    );
    let statuses = [a.expect("1"), b.expect("2"), c.expect("3")];
    assert!(statuses.contains(&TaskStatus::Completed), "{statuses:?}");
    let view = tasks.get(&key).await.expect("get").expect("task");
    assert_eq!((view.task.status, view.ended), (TaskStatus::Completed, 3));
    assert_eq!(view.sub_tasks[1].result, Some(json!({"bytes": 2})));
    // Created, started, completed: three versions, two of them in history.
    assert_eq!(view.task.version(), 3);
    let data = DataService::new(client, tables);
    let history = data.history(&key.pk, &key.sk, 1, 2).await.expect("history");
    let statuses: Vec<&serde_json::Value> =
        history.iter().map(|r| &r.attributes["status"]).collect();
    assert_eq!(statuses, [&json!("CREATED"), &json!("STARTED")]);

    // One sub-task fails: the task fails when the last one ends, naming it.
    let failing = tasks
        .create(
            "tenant001",
            "import",
            json!(null),
            vec![json!(1), json!(2)],
            &invoker,
        )
        .await
        .expect("create");
    tasks.start(&failing, &invoker).await.expect("start");
    let after_first = tasks
        .fail_sub_task(&failing, 2, "row 7 is not a number", &invoker)
        .await
        .expect("end 2");
    assert_eq!(
        after_first,
        TaskStatus::Started,
        "one sub-task is still running"
    );
    let after_last = tasks
        .end_sub_task(&failing, 1, Ok(json!("done")), &invoker)
        .await
        .expect("end 1");
    assert_eq!(after_last, TaskStatus::Failed);
    let view = tasks.get(&failing).await.expect("get").expect("task");
    assert_eq!(
        view.task.error.as_deref(),
        Some("sub-task 2: row 7 is not a number")
    );

    // A task without sub-tasks is ended by its worker.
    let single = tasks
        .create(
            "tenant001",
            "report",
            json!({}),
            Vec::<Value>::new(),
            &invoker,
        )
        .await
        .expect("create");
    tasks.start(&single, &invoker).await.expect("start");
    tasks
        .finish(&single, Ok(json!({"rows": 10})), &invoker)
        .await
        .expect("finish");
    let view = tasks.get(&single).await.expect("get").expect("task");
    assert_eq!(view.task.status, TaskStatus::Completed);
    assert_eq!(view.task.result, Some(json!({"rows": 10})));
}

/// A resize job's own types: the task's input, each sub-task's, their results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Album {
    album: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Image {
    name: String,
    width: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Resized {
    bytes: u64,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_take_and_give_back_the_callers_own_types() {
    let client = common::client().await;
    let tables = common::unique_names("task");
    ensure_tables(&client, &tables).await.expect("tables");
    let tasks = TaskService::new(
        CommandService::new(client.clone(), tables.clone()),
        DataService::new(client, tables),
    );
    let invoker = Invoker::default();
    let images = vec![
        Image {
            name: "a.png".into(),
            width: 640,
        },
        Image {
            name: "b.png".into(),
            width: 800,
        },
    ];
    let album = Album { album: "a1".into() };
    let key = tasks
        .create("tenant001", "resize", &album, images.clone(), &invoker)
        .await
        .expect("create");
    tasks.start(&key, &invoker).await.expect("start");
    tasks
        .end_sub_task(&key, 1, Ok(Resized { bytes: 10 }), &invoker)
        .await
        .expect("end 1");
    let status = tasks
        .end_sub_task(&key, 2, Ok(Resized { bytes: 20 }), &invoker)
        .await
        .expect("end 2");
    assert_eq!(status, TaskStatus::Completed);

    let view = tasks
        .get_as::<Album, Image, Resized>(&key)
        .await
        .expect("typed")
        .expect("task");
    assert_eq!(view.task.input, album);
    assert_eq!(view.task.result, None, "the task itself has no result");
    let inputs: Vec<&Image> = view.sub_tasks.iter().map(|s| &s.input).collect();
    assert_eq!(inputs, [&images[0], &images[1]]);
    let results: Vec<Option<Resized>> = view.sub_tasks.iter().map(|s| s.result.clone()).collect();
    assert_eq!(
        results,
        [Some(Resized { bytes: 10 }), Some(Resized { bytes: 20 })]
    );
    // The same rows read as JSON, and as types they do not fit: an error naming the
    // type, never a default.
    let untyped = tasks.get(&key).await.expect("json").expect("task");
    assert_eq!(
        untyped.sub_tasks[0].input,
        json!({"name": "a.png", "width": 640})
    );
    let wrong = tasks.get_as::<Image, Image, Resized>(&key).await;
    assert!(
        matches!(&wrong, Err(kura_cqrs::CqrsError::Entity { what, .. }) if what.contains("Image")),
        "{wrong:?}"
    );
}
